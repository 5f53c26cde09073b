-- gpucc-args: testsuite/recipe/kernels/matmul.c
-- Nothing to double-buffer: no copy into shared memory at the top of kk.
tile_by_index({"i", "j", "k"}, {16, 16, 16}, {l1_control="ii", l2_control="jj", l3_control="kk"}, {"ii", "jj", "kk", "i", "j", "k"})
cudaize("matmul_kernel", {}, {block={"ii", "jj"}, thread={"j", "i"}})
double_buffer("kk")
