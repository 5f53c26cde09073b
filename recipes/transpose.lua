-- Transposition through shared memory: threads along i write B[j][i] in order
-- (coalesced); the tile of A is read into shared memory along j (coalesced too), padded
-- so that the column reads do not conflict on banks.
T = param("T", {16, 32}, 32)
tile_by_index({"i", "j"}, {T, T}, {l1_control="ii", l2_control="jj"}, {"ii", "jj", "j", "i"})
cudaize("transpose_kernel", {}, {block={"ii", "jj"}, thread={"i", "j"}})
copy_to_shared("tx", "A", -16)
