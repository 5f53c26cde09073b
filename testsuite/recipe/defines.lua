-- gpucc-args: testsuite/recipe/kernels/matmul.c
-- Recipe expressions may use the C file's #define constants.
tile_by_index({"i", "j"}, {N / 4, N / 4}, {l1_control="ii", l2_control="jj"}, {"ii", "jj", "i", "j", "k"})
cudaize("matmul_kernel", {}, {block={"ii", "jj"}, thread={"j", "i"}})
print_code()
