-- dgemm_nn_wide.lua with its shared tiles double-buffered and filled by asynchronous copies
-- (double_buffer("kk", {async=true}): cp.async on sm_80 and later), as gpucc's tuner writes it
-- when the emulator ranks it faster.

-- The nest (line 8): 2-D threads (`j`, `i`); A, B in shared memory; C in registers.
-- `j` carries no dependence: threads along x, its tiles over blocks; `i` too, along y (2-D, as the arrays are).
-- `j` indexes the last dimension of the arrays: neighbours along x touch neighbours (coalesced).
-- `A` is read-only and the threads of a block read the same elements: staged once per block in shared memory (§5.4 step 1).
-- `B` is read-only and the threads of a block read the same elements: staged once per block in shared memory (§5.4 step 1).
-- each thread updates the same elements of `C` on every iteration of its inner loops: kept in registers (§5.4 step 2).
-- each thread computes an RY x RX tile of `C` in registers, and per step of `k` reads RY values and RX values from shared memory for RY x RX multiply-adds (the outer-product form, seed 004 Fig. 4.1(d)); shared rows padded to 16 bytes, so that they are read 128 bits at a time.
TX = param("TX", {64, 128}, 128)
TY = param("TY", {64, 128}, 64)
TK = param("TK", {8, 16}, 16)
RX = param("RX", {4, 8}, 8)
RY = param("RY", {4, 8}, 4)
tile_by_index({"i", "j", "k"}, {RY, RX, TK}, {l1_control="it", l1_tile="ir", l2_control="jt", l2_tile="jr", l3_control="kk"}, {"it", "jt", "kk", "ir", "jr", "k"})
tile_by_index({"it", "jt"}, {TY / RY, TX / RX}, {l1_control="ii", l2_control="jj"}, {"ii", "jj", "kk", "it", "jt", "k", "ir", "jr"})
cudaize("dgemm_nn_kernel", {}, {block={"jj", "ii"}, thread={"jt", "it"}})
copy_to_shared("tx", "A", 2, {width=2})
copy_to_shared("tx", "B", 2, {width=2})
copy_to_registers("kk", "C")
double_buffer("kk", {async=true})
unroll("jr")
unroll("ir")
unroll("k")
