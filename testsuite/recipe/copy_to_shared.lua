-- gpucc-args: testsuite/recipe/kernels/matmul.c
-- Tiles of A and B staged in shared memory, each row padded to 17 floats (-16).
tile_by_index({"i", "j", "k"}, {16, 16, 16}, {l1_control="ii", l2_control="jj", l3_control="kk"}, {"ii", "jj", "kk", "i", "j", "k"})
cudaize("matmul_kernel", {}, {block={"ii", "jj"}, thread={"j", "i"}})
copy_to_shared("tx", "A", -16)
copy_to_shared("tx", "B", -16)
print_code()
