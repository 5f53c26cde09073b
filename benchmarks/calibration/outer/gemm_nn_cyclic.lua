-- gemm_nn in the outer-product form with a cyclic register tile (seed 004 §4.4, Fig.
-- 4.1(e)): as gemm_nn_outer.lua, a block computes a TY x TX tile of C and each thread an
-- RY x RX tile in registers, but a thread's rows and columns are TY / RY and TX / RX
-- apart, not neighbours. Per k step a thread reads RY values of A and RX of B from shared
-- memory: B's are scalar reads free of bank conflicts (the blocked tile reads 128 bits at
-- a time with conflicts); A's are still 128 bits along k.
TX = param("TX", {64, 128}, 128)
TY = param("TY", {64, 128}, 128)
TK = param("TK", {8, 16}, 16)
RX = param("RX", {4, 8}, 8)
RY = param("RY", {4, 8}, 8)
tile_by_index({"i", "j", "k"}, {TY, TX, TK}, {l1_control="ii", l2_control="jj", l3_control="kk"},
              {"ii", "jj", "kk", "i", "j", "k"})
tile_by_index({"i", "j"}, {TY / RY, TX / RX}, {l1_control="ir", l2_control="jr"},
              {"ii", "jj", "kk", "i", "j", "k", "ir", "jr"})
cudaize("gemm_nn_kernel", {}, {block={"jj", "ii"}, thread={"j", "i"}})
copy_to_shared("tx", "A", 4)
copy_to_shared("tx", "B", 4)
copy_to_registers("kk", "C")
unroll("jr")
unroll("ir")
unroll("k")
