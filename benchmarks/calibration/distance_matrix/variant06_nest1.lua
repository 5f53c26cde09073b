-- Written by gpucc for function distance_matrix (the strategy generator of seed 004, Chapters 4-5),
-- for NVIDIA H100 SXM5 80GB.
-- Variant 5 of nest 1: 1-D threads (`j`); X, Y in shared memory; TX=256 TK=16.
-- Predicted time on the device: 612.7 us (emulated, not measured).
-- Replay it with --recipe, or edit it: recipes/README.md documents each command.

-- The nest (line 11): 1-D threads (`j`); X, Y in shared memory.
-- `j` carries no dependence: threads along x, its tiles over blocks.
-- `j` indexes the last dimension of the arrays: neighbours along x touch neighbours (coalesced).
-- `i` run inside each thread.
-- `X` is read-only and the threads of a block read the same elements: staged once per block in shared memory (§5.4 step 1).
-- `Y` is read with a stride along x: copied to shared memory in coalesced order, then read from there (§4.2.1).
TX = param("TX", {64, 128, 256, 512}, 256)
TK = param("TK", {8, 16, 32, 64}, 16)
tile_by_index({"j", "i"}, {TX, TK}, {l1_control="jj", l2_control="ii"}, {"jj", "ii", "j", "i"})
cudaize("distance_matrix_kernel", {}, {block={"jj"}, thread={"j"}})
copy_to_shared("tx", "X", -16)
copy_to_shared("tx", "Y", -16)
