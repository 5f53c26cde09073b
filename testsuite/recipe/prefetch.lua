-- gpucc-args: testsuite/recipe/kernels/matmul_100.c
-- Copies pipelined with the computation: the tiles of A and B for the next iteration of
-- kk are loaded into registers (A_shared_next, B_shared_next) while the current tiles in
-- shared memory are read, and stored into shared memory at the top of the next
-- iteration. At N = 100 the last tile is cut: each staged element keeps its copy's guard.
tile_by_index({"i", "j", "k"}, {16, 16, 16}, {l1_control="ii", l2_control="jj", l3_control="kk"}, {"ii", "jj", "kk", "i", "j", "k"})
cudaize("matmul_kernel", {}, {block={"ii", "jj"}, thread={"j", "i"}})
copy_to_shared("tx", "A", -16)
copy_to_shared("tx", "B", -16)
prefetch("kk")
