-- gpucc-args: testsuite/recipe/kernels/matmul.c
tile_by_index({"i"}, {0}, {l1_control="ii"})
