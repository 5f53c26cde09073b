-- gpucc-args: testsuite/recipe/kernels/matmul.c
tile_by_index({"i", "j"}, {TI, TJ}, {l1_control="ii", l2_control="jj"}, {"ii", "jj", "i", "j", "k"})
