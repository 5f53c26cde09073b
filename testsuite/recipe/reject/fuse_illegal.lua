-- gpucc-args: testsuite/recipe/kernels/two_loops.c
-- Fused without a shift, iteration i would read b[i + 1] before iteration i + 1 writes it.
fuse({0, 1}, "i")
