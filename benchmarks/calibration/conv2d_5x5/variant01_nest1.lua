-- Written by gpucc for function conv2d_5x5 (the strategy generator of seed 004, Chapters 4-5),
-- for NVIDIA H100 SXM5 80GB.
-- Variant 3 of nest 1: 2-D threads (`j`, `i`); in in shared memory; out in registers; w in constant memory; TX=64 TY=4.
-- Predicted time on the device: 57.7 us (emulated, not measured).
-- Replay it with --recipe, or edit it: recipes/README.md documents each command.

-- The nest (line 9): 2-D threads (`j`, `i`); in in shared memory; out in registers; w in constant memory.
-- `j` carries no dependence: threads along x, its tiles over blocks; `i` too, along y (2-D, as the arrays are).
-- `j` indexes the last dimension of the arrays: neighbours along x touch neighbours (coalesced).
-- neighbouring threads read overlapping parts of `in`: staged once per block in shared memory (§4.2.2).
-- each thread updates the same elements of `out` on every iteration of its inner loops: kept in registers (§5.4 step 2).
-- `w` (100 bytes) is read-only and read at the same address by all threads: constant memory broadcasts it.
TX = param("TX", {32, 64}, 64)
TY = param("TY", {4, 8, 16}, 4)
tile_by_index({"j", "i"}, {TX, TY}, {l1_control="jj", l2_control="ii"}, {"ii", "jj", "i", "j"})
cudaize("conv2d_5x5_kernel", {}, {block={"jj", "ii"}, thread={"j", "i"}})
copy_to_shared("tx", "in", -16)
copy_to_registers("tx", "out")
copy_to_constant("w")
