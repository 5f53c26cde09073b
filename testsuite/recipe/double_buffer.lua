-- gpucc-args: testsuite/recipe/kernels/matmul_100.c
-- Double-buffered shared tiles: A_shared and B_shared get two buffers each, and each
-- iteration of kk copies the next k tile into one buffer (`(kk + 1) % 2`) while the
-- threads compute on the other (`kk % 2`). The first tile's copy runs in a prologue
-- iteration (kk = -1), and one barrier ends each iteration instead of two. At N = 100
-- the last tile is cut: the copies keep their guards.
tile_by_index({"i", "j", "k"}, {16, 16, 16}, {l1_control="ii", l2_control="jj", l3_control="kk"}, {"ii", "jj", "kk", "i", "j", "k"})
cudaize("matmul_kernel", {}, {block={"ii", "jj"}, thread={"j", "i"}})
copy_to_shared("tx", "A", -16)
copy_to_shared("tx", "B", -16)
double_buffer("kk")
print_code()
