-- gpucc-args: testsuite/recipe/kernels/matmul.c
-- Tiles i and j by 16 and orders the loops control-first, then maps them.
tile_by_index({"i", "j"}, {16, 16}, {l1_control="ii", l2_control="jj"}, {"ii", "jj", "i", "j", "k"})
print_code()
cudaize("matmul_kernel", {}, {block={"ii", "jj"}, thread={"j", "i"}})
print_code()
