-- Written by gpucc for function gemv_n (the strategy generator of seed 004, Chapters 4-5),
-- for NVIDIA H100 SXM5 80GB.
-- Variant 4 of nest 1: 1-D threads (`i`); y in registers; x in constant memory; A through the read-only cache; TX=256.
-- Predicted time on the device: 998.9 us (emulated, not measured).
-- Replay it with --recipe, or edit it: recipes/README.md documents each command.

-- The nest (line 7): 1-D threads (`i`); y in registers; x in constant memory; A through the read-only cache.
-- `i` carries no dependence: threads along x, its tiles over blocks.
-- `i` indexes the last dimension of the arrays: neighbours along x touch neighbours (coalesced).
-- each thread updates the same elements of `y` on every iteration of its inner loops: kept in registers (§5.4 step 2).
-- `x` (16384 bytes) is read-only and read at the same address by all threads: constant memory broadcasts it.
-- `A` only read: through the read-only data cache (`__ldg`, §5.4 step 3).
TX = param("TX", {64, 128, 256, 512}, 256)
tile_by_index({"i"}, {TX}, {l1_control="ii"}, {"ii", "i"})
cudaize("gemv_n_kernel", {}, {block={"ii"}, thread={"i"}})
copy_to_registers("tx", "y")
copy_to_constant("x")
copy_to_texture("A")
