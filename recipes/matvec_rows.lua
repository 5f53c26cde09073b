-- Matrix-vector product y = A x with one block per row: the row's elements are spread
-- over the block's TJ threads (consecutive threads read consecutive elements, so every
-- read of A is coalesced), each thread adds up its share in a register, and the block
-- combines the shares with warp shuffles (`reduce=`). The initialisation y[i] = 0 gets a
-- loop nest, and a kernel, of its own (`distribute`). Rows need no tiling: there are as
-- many blocks as rows, which fills the GPU from a few thousand rows on.
TJ = param("TJ", {64, 128, 256, 512}, 128)
distribute({0, 1}, "i")
tile_by_index(0, {"i"}, {256}, {l1_control="ii"}, {"ii", "i"})
cudaize(0, "matvec_init", {}, {block={"ii"}, thread={"i"}})
tile_by_index(1, {"j"}, {TJ}, {l1_control="jj"}, {"i", "jj", "j"})
cudaize(1, "matvec_kernel", {}, {block={"i"}, thread={"j"}, reduce={"y"}})
