-- Written by gpucc for function gemv_t (the strategy generator of seed 004, Chapters 4-5),
-- for NVIDIA H100 SXM5 80GB.
-- Variant 1 of nest 1: 1-D threads (`j`); x in shared memory; y in registers; A through the read-only cache; TX=256 TK=16.
-- Predicted time on the device: 1.811 ms (emulated, not measured).
-- Replay it with --recipe, or edit it: recipes/README.md documents each command.

-- The nest (line 8): 1-D threads (`j`); x in shared memory; y in registers; A through the read-only cache.
-- `j` carries no dependence: threads along x, its tiles over blocks.
-- `j` indexes the last dimension of the arrays: neighbours along x touch neighbours (coalesced).
-- `x` is read-only and the threads of a block read the same elements: staged once per block in shared memory (§5.4 step 1).
-- each thread updates the same elements of `y` on every iteration of its inner loops: kept in registers (§5.4 step 2).
-- `A` only read: through the read-only data cache (`__ldg`, §5.4 step 3).
TX = param("TX", {64, 128, 256, 512}, 256)
TK = param("TK", {8, 16, 32, 64}, 16)
tile_by_index({"j", "i"}, {TX, TK}, {l1_control="jj", l2_control="ii"}, {"jj", "ii", "j", "i"})
cudaize("gemv_t_kernel", {}, {block={"jj"}, thread={"j"}})
copy_to_shared("tx", "x", 0)
copy_to_registers("ii", "y")
copy_to_texture("A")
