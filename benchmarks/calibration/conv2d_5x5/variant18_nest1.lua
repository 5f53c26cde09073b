-- Written by gpucc for function conv2d_5x5 (the strategy generator of seed 004, Chapters 4-5),
-- for NVIDIA H100 SXM5 80GB.
-- Variant 17 of nest 1: 1-D threads (`j`); in in shared memory; w through the read-only cache; TX=256 TK=16.
-- Predicted time on the device: 8.719 ms (emulated, not measured).
-- Replay it with --recipe, or edit it: recipes/README.md documents each command.

-- The nest (line 9): 1-D threads (`j`); in in shared memory; w through the read-only cache.
-- `j` carries no dependence: threads along x, its tiles over blocks.
-- `j` indexes the last dimension of the arrays: neighbours along x touch neighbours (coalesced).
-- `i` run inside each thread.
-- neighbouring threads read overlapping parts of `in`: staged once per block in shared memory (§4.2.2).
-- `w` only read: through the read-only data cache (`__ldg`, §5.4 step 3).
TX = param("TX", {64, 128, 256, 512}, 256)
TK = param("TK", {8, 16, 32, 64}, 16)
tile_by_index({"j", "i"}, {TX, TK}, {l1_control="jj", l2_control="ii"}, {"jj", "ii", "j", "i"})
cudaize("conv2d_5x5_kernel", {}, {block={"jj"}, thread={"j"}})
copy_to_shared("tx", "in", -16)
copy_to_texture("w")
