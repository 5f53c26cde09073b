-- DGEMM (seed 004, Fig. 4.1(d)): TI x TJ tiles of C per block, an RI x RJ register tile
-- per thread, both inputs staged in shared memory through the read-only data cache.
-- Inside a k tile, k runs outside the register tile (the outer-product form: per k step
-- a thread reads RI values of A and RJ of B and does RI x RJ FMAs), and the rows of the
-- shared tiles are padded by 2 doubles, so that they stay 16-byte aligned and nvcc reads
-- two doubles per load.
TI = param("TI", {32, 64, 128}, 128)
TJ = param("TJ", {32, 64}, 64)
TK = param("TK", {8, 16}, 8)
RI = param("RI", {2, 4, 8}, 8)
RJ = param("RJ", {2, 4}, 4)
tile_by_index({"i", "j", "k"}, {RI, RJ, TK},
              {l1_control="t", l1_tile="r", l2_control="s", l2_tile="q", l3_control="kk"},
              {"t", "s", "kk", "r", "q", "k"})
tile_by_index({"t", "s"}, {TI / RI, TJ / RJ}, {l1_control="ii", l2_control="jj"},
              {"ii", "jj", "kk", "t", "s", "k", "r", "q"})
cudaize("dgemm_kernel", {}, {block={"ii", "jj"}, thread={"s", "t"}})
copy_to_shared("tx", "A", 2)
copy_to_shared("tx", "B", 2)
copy_to_texture("A")
copy_to_texture("B")
copy_to_registers("kk", "C")
unroll_to_depth(3)
