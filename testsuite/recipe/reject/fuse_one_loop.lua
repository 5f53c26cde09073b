-- gpucc-args: testsuite/recipe/kernels/seidel.c
-- Statement 0 has one loop `i`: there is nothing to fuse it with.
fuse({0}, "i")
