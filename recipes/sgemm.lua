-- SGEMM (seed 004, Fig. 4.1): each block computes a TI x TJ tile of C, each thread RT
-- rows of a column of it, kept in registers. The k loop is tiled by TK; each k tile of A
-- and of B is staged in shared memory, padded against bank conflicts.
TI = param("TI", {32, 64, 128}, 64)
TJ = param("TJ", {16, 32, 64}, 16)
TK = param("TK", {8, 16, 32}, 16)
RT = param("RT", {2, 4, 8}, 4)
tile_by_index({"i", "j", "k"}, {RT, TJ, TK},
              {l1_control="t", l1_tile="r", l2_control="jj", l3_control="kk"},
              {"t", "jj", "kk", "r", "j", "k"})
tile_by_index({"t"}, {TI / RT}, {l1_control="ii"},
              {"ii", "jj", "kk", "t", "j", "r", "k"})
cudaize("sgemm_kernel", {}, {block={"ii", "jj"}, thread={"j", "t"}})
copy_to_shared("tx", "A", -16)
copy_to_shared("tx", "B", -16)
copy_to_registers("kk", "C")
unroll_to_depth(2)
