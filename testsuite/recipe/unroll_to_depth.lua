-- gpucc-args: testsuite/recipe/kernels/matmul.c
-- unroll_to_depth(1): every innermost loop of constant trip count opens completely.
tile_by_index({"i", "j", "k"}, {16, 16, 4}, {l1_control="ii", l2_control="jj", l3_control="kk"}, {"ii", "jj", "kk", "i", "j", "k"})
cudaize("matmul_kernel", {}, {block={"ii", "jj"}, thread={"j", "i"}})
unroll_to_depth(1)
print_code()
