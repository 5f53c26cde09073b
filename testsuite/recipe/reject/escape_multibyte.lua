-- gpucc-args: testsuite/recipe/kernels/matmul.c
-- `\é` is not an escape (and é is two bytes long: this used to panic).
name = "matmul\é"
