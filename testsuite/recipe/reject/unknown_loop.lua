-- gpucc-args: testsuite/recipe/kernels/matmul.c
tile_by_index({"i", "l"}, {16, 16}, {l1_control="ii", l2_control="ll"})
