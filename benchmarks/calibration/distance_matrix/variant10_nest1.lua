-- Written by gpucc for function distance_matrix (the strategy generator of seed 004, Chapters 4-5),
-- for NVIDIA H100 SXM5 80GB.
-- Variant 9 of nest 1: 1-D threads (`j`); Y in shared memory; X through the read-only cache; TX=256.
-- Predicted time on the device: 3.364 ms (emulated, not measured).
-- Replay it with --recipe, or edit it: recipes/README.md documents each command.

-- The nest (line 11): 1-D threads (`j`); Y in shared memory; X through the read-only cache.
-- `j` carries no dependence: threads along x, its tiles over blocks.
-- `j` indexes the last dimension of the arrays: neighbours along x touch neighbours (coalesced).
-- `i` run inside each thread.
-- `Y` is read with a stride along x: copied to shared memory in coalesced order, then read from there (§4.2.1).
-- `X` only read: through the read-only data cache (`__ldg`, §5.4 step 3).
TX = param("TX", {64, 128, 256, 512}, 256)
tile_by_index({"j"}, {TX}, {l1_control="jj"}, {"jj", "j", "i"})
cudaize("distance_matrix_kernel", {}, {block={"jj"}, thread={"j"}})
copy_to_shared("tx", "Y", -16)
copy_to_texture("X")
