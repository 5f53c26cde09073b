-- Transposition through shared memory: threads along i write B[j][i] in order
-- (coalesced); the tile of A is read into shared memory along j (coalesced too), padded
-- so that the column reads do not conflict on banks. Each thread moves R elements, T / R
-- rows apart (a cyclic tile: `jr` runs inside `j`'s tile loop), so that a block of T x
-- T / R threads keeps R loads and stores in flight per thread: NVIDIA's 32 x 8
-- transpose.
T = param("T", {16, 32}, 32)
R = param("R", {1, 2, 4, 8}, 4)
tile_by_index({"i", "j"}, {T, T}, {l1_control="ii", l2_control="jj"}, {"ii", "jj", "j", "i"})
tile_by_index({"j"}, {T / R}, {l1_control="jr"}, {"ii", "jj", "j", "i", "jr"})
cudaize("transpose_kernel", {}, {block={"ii", "jj"}, thread={"i", "j"}})
copy_to_shared("tx", "A", -16)
unroll("jr")
