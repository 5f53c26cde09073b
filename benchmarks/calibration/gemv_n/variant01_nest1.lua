-- Written by gpucc for function gemv_n (the strategy generator of seed 004, Chapters 4-5),
-- for NVIDIA H100 SXM5 80GB.
-- Variant 1 of nest 1: 1-D threads (`i`); A, x in shared memory; y in registers; TX=256 TK=16.
-- Predicted time on the device: 125.3 us (emulated, not measured).
-- Replay it with --recipe, or edit it: recipes/README.md documents each command.

-- The nest (line 7): 1-D threads (`i`); A, x in shared memory; y in registers.
-- `i` carries no dependence: threads along x, its tiles over blocks.
-- `i` indexes the last dimension of the arrays: neighbours along x touch neighbours (coalesced).
-- `A` is read with a stride along x: copied to shared memory in coalesced order, then read from there (§4.2.1).
-- `x` is read-only and the threads of a block read the same elements: staged once per block in shared memory (§5.4 step 1).
-- each thread updates the same elements of `y` on every iteration of its inner loops: kept in registers (§5.4 step 2).
TX = param("TX", {64, 128, 256, 512}, 256)
TK = param("TK", {8, 16, 32, 64}, 16)
tile_by_index({"i", "j"}, {TX, TK}, {l1_control="ii", l2_control="jj"}, {"ii", "jj", "i", "j"})
cudaize("gemv_n_kernel", {}, {block={"ii"}, thread={"i"}})
copy_to_shared("tx", "A", -16)
copy_to_shared("tx", "x", 0)
copy_to_registers("jj", "y")
