-- Written by gpucc for function transpose_rect (the strategy generator of seed 004, Chapters 4-5),
-- for NVIDIA H100 SXM5 80GB.
-- Variant 1 of nest 1: 2-D threads (`i`, `j`); A in shared memory; TX=64 TY=4.
-- Predicted time on the device: 48.5 us (emulated, not measured).
-- Replay it with --recipe, or edit it: recipes/README.md documents each command.

-- The nest (line 7): 2-D threads (`i`, `j`); A in shared memory.
-- `i` carries no dependence: threads along x, its tiles over blocks; `j` too, along y (2-D, as the arrays are).
-- `i` indexes the last dimension of the arrays: neighbours along x touch neighbours (coalesced).
-- `A` is read with a stride along x: copied to shared memory in coalesced order, then read from there (§4.2.1).
TX = param("TX", {32, 64}, 64)
TY = param("TY", {4, 8, 16}, 4)
tile_by_index({"i", "j"}, {TX, TY}, {l1_control="ii", l2_control="jj"}, {"jj", "ii", "j", "i"})
cudaize("transpose_rect_kernel", {}, {block={"ii", "jj"}, thread={"i", "j"}})
copy_to_shared("tx", "A", -16)
