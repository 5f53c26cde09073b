-- gpucc-args: testsuite/recipe/kernels/matmul.c
cudaize("matmul_kernel", {}, {block={"i"}, thread={"j", "k"}})
