-- gpucc-args: testsuite/recipe/kernels/matmul.c
tile("i")
