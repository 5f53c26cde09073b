-- gpucc-args: testsuite/recipe/kernels/matmul_100.c
-- unroll(loop, factor): k by 3, with a remainder, since 3 does not divide 100.
tile_by_index({"i", "j"}, {16, 16}, {l1_control="ii", l2_control="jj"}, {"ii", "jj", "i", "j", "k"})
cudaize("matmul_kernel", {}, {block={"ii", "jj"}, thread={"j", "i"}})
unroll("k", 3)
print_code()
