-- SGEMM in the outer-product form (seed 004, Fig. 4.1(d), with the register tile of
-- Volkov and Demmel's and MAGMA's kernels): each block computes a TI x TJ tile of C, each
-- thread an RI x RJ tile of it, kept in registers. The k loop is tiled by TK; each k tile
-- of A and of B is staged in shared memory. Inside a k tile, k runs outside the register
-- tile, so that per k step a thread reads RI values of A and RJ of B and does RI x RJ
-- FMAs; the rows of the shared tiles are padded by 4 elements (not to a length coprime
-- with 16), so that they stay 16-byte aligned and nvcc reads them 128 bits at a time.
TI = param("TI", {64, 128}, 128)
TJ = param("TJ", {64, 128}, 128)
TK = param("TK", {8, 16}, 16)
RI = param("RI", {4, 8}, 8)
RJ = param("RJ", {4, 8}, 8)
tile_by_index({"i", "j", "k"}, {RI, RJ, TK},
              {l1_control="t", l1_tile="r", l2_control="s", l2_tile="q", l3_control="kk"},
              {"t", "s", "kk", "r", "q", "k"})
tile_by_index({"t", "s"}, {TI / RI, TJ / RJ}, {l1_control="ii", l2_control="jj"},
              {"ii", "jj", "kk", "t", "s", "k", "r", "q"})
cudaize("sgemm_kernel", {}, {block={"ii", "jj"}, thread={"s", "t"}})
copy_to_shared("tx", "A", 4)
copy_to_shared("tx", "B", 4)
copy_to_registers("kk", "C")
unroll_to_depth(3)
