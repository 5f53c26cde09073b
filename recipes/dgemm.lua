-- DGEMM (seed 004, Fig. 4.1(d)): 64 x 64 tiles of C per block, a 4 x 4 register tile
-- per thread, both inputs staged in shared memory through the read-only data cache.
TI = param("TI", {32, 64}, 64)
TJ = param("TJ", {32, 64}, 64)
TK = param("TK", {8, 16}, 16)
RI = param("RI", {2, 4}, 4)
RJ = param("RJ", {2, 4}, 4)
tile_by_index({"i", "j", "k"}, {RI, RJ, TK},
              {l1_control="t", l1_tile="r", l2_control="s", l2_tile="q", l3_control="kk"},
              {"t", "s", "kk", "r", "q", "k"})
tile_by_index({"t", "s"}, {TI / RI, TJ / RJ}, {l1_control="ii", l2_control="jj"},
              {"ii", "jj", "kk", "t", "s", "r", "q", "k"})
cudaize("dgemm_kernel", {}, {block={"ii", "jj"}, thread={"s", "t"}})
copy_to_shared("tx", "A", -16)
copy_to_shared("tx", "B", -16)
copy_to_texture("A")
copy_to_texture("B")
copy_to_registers("kk", "C")
unroll_to_depth(3)
