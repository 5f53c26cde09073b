-- gpucc-args: testsuite/recipe/kernels/matmul.c
-- Later CHiLL's form: the statement number first.
tile_by_index(0, {"i", "j"}, {32, 8}, {l1_control="ii", l2_control="jj"}, {"ii", "jj", "i", "j", "k"})
cudaize(0, "matmul_kernel", {}, {block={"ii", "jj"}, thread={"j", "i"}})
print_code()
