-- Written by gpucc for function distance_matrix (the strategy generator of seed 004, Chapters 4-5),
-- for NVIDIA H100 SXM5 80GB.
-- Variant 1 of nest 1: 2-D threads (`j`, `i`); X, Y in shared memory; TX=64 TY=4.
-- Predicted time on the device: 24.2 us (emulated, not measured).
-- Replay it with --recipe, or edit it: recipes/README.md documents each command.

-- The nest (line 11): 2-D threads (`j`, `i`); X, Y in shared memory.
-- `j` carries no dependence: threads along x, its tiles over blocks; `i` too, along y (2-D, as the arrays are).
-- `j` indexes the last dimension of the arrays: neighbours along x touch neighbours (coalesced).
-- `X` is read-only and the threads of a block read the same elements: staged once per block in shared memory (§5.4 step 1).
-- `Y` is read-only and the threads of a block read the same elements: staged once per block in shared memory (§5.4 step 1).
TX = param("TX", {32, 64}, 64)
TY = param("TY", {4, 8, 16}, 4)
tile_by_index({"j", "i"}, {TX, TY}, {l1_control="jj", l2_control="ii"}, {"ii", "jj", "i", "j"})
cudaize("distance_matrix_kernel", {}, {block={"jj", "ii"}, thread={"j", "i"}})
copy_to_shared("tx", "X", -16)
copy_to_shared("tx", "Y", -16)
