-- gpucc-args: testsuite/recipe/kernels/matmul.c
-- k on threads, j inside each thread: every thread would add to 64 elements of a row of C,
-- one partial result each.
permute({"i", "k", "j"})
cudaize("matmul_kernel", {}, {block={"i"}, thread={"k"}, reduce={"C"}})
