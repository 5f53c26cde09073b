-- Written by gpucc for function transpose_rect (the strategy generator of seed 004, Chapters 4-5),
-- for NVIDIA H100 SXM5 80GB.
-- Variant 3 of nest 1: 1-D threads (`i`); A in shared memory; TX=256 TK=16.
-- Predicted time on the device: 355.6 us (emulated, not measured).
-- Replay it with --recipe, or edit it: recipes/README.md documents each command.

-- The nest (line 7): 1-D threads (`i`); A in shared memory.
-- `i` carries no dependence: threads along x, its tiles over blocks.
-- `i` indexes the last dimension of the arrays: neighbours along x touch neighbours (coalesced).
-- `j` run inside each thread.
-- `A` is read with a stride along x: copied to shared memory in coalesced order, then read from there (§4.2.1).
TX = param("TX", {64, 128, 256, 512}, 256)
TK = param("TK", {8, 16, 32, 64}, 16)
tile_by_index({"i", "j"}, {TX, TK}, {l1_control="ii", l2_control="jj"}, {"ii", "jj", "i", "j"})
cudaize("transpose_rect_kernel", {}, {block={"ii"}, thread={"i"}})
copy_to_shared("tx", "A", -16)
