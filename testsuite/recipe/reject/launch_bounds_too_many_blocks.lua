-- gpucc-args: testsuite/recipe/kernels/matmul.c
tile_by_index({"i", "j"}, {16, 16}, {l1_control="ii", l2_control="jj"}, {"ii", "jj", "i", "j", "k"})
cudaize("matmul_kernel", {}, {block={"ii", "jj"}, thread={"j", "i"}})
launch_bounds("matmul_kernel", 64)
