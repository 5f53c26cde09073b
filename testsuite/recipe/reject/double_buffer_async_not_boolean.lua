-- gpucc-args: testsuite/recipe/kernels/matmul.c
-- `async` takes a boolean.
tile_by_index({"i", "j", "k"}, {16, 16, 16}, {l1_control="ii", l2_control="jj", l3_control="kk"}, {"ii", "jj", "kk", "i", "j", "k"})
cudaize("matmul_kernel", {}, {block={"ii", "jj"}, thread={"j", "i"}})
copy_to_shared("tx", "A", -16)
double_buffer("kk", {async=1})
