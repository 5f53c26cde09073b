-- Written by gpucc for function transpose_rect (the strategy generator of seed 004, Chapters 4-5),
-- for NVIDIA H100 SXM5 80GB.
-- Variant 4 of nest 1: 1-D threads (`i`); A through the read-only cache; TX=256.
-- Predicted time on the device: 1.882 ms (emulated, not measured).
-- Replay it with --recipe, or edit it: recipes/README.md documents each command.

-- The nest (line 7): 1-D threads (`i`); A through the read-only cache.
-- `i` carries no dependence: threads along x, its tiles over blocks.
-- `i` indexes the last dimension of the arrays: neighbours along x touch neighbours (coalesced).
-- `j` run inside each thread.
-- `A` only read: through the read-only data cache (`__ldg`, §5.4 step 3).
TX = param("TX", {64, 128, 256, 512}, 256)
tile_by_index({"i"}, {TX}, {l1_control="ii"}, {"ii", "i", "j"})
cudaize("transpose_rect_kernel", {}, {block={"ii"}, thread={"i"}})
copy_to_texture("A")
