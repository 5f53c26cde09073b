-- gpucc-args: testsuite/recipe/kernels/matmul_100.c
-- 16 does not divide 100: the last tiles are guarded.
tile_by_index({"i", "j"}, {16, 16}, {l1_control="ii", l2_control="jj"}, {"ii", "jj", "i", "j", "k"})
print_code()
cudaize("matmul_kernel", {}, {block={"ii", "jj"}, thread={"j", "i"}})
print_code()
