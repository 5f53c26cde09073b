-- Written by gpucc for function tensor_contraction4d (the strategy generator of seed 004, Chapters 4-5),
-- for NVIDIA H100 SXM5 80GB.
-- Variant 4 of nest 1: 1-D threads (`d`); A, B through the read-only cache; TX=64.
-- Predicted time on the device: 3.0 us (emulated, not measured).
-- Replay it with --recipe, or edit it: recipes/README.md documents each command.

-- The nest (line 13): 1-D threads (`d`); A, B through the read-only cache.
-- `d` carries no dependence: threads along x, its tiles over blocks.
-- `d` indexes the last dimension of the arrays: neighbours along x touch neighbours (coalesced).
-- `a`, `b`, `c` run inside each thread.
-- `A`, `B` only read: through the read-only data cache (`__ldg`, §5.4 step 3).
TX = param("TX", {64}, 64)
tile_by_index({"d"}, {TX}, {l1_control="dd"}, {"dd", "d", "a", "b", "c"})
cudaize("tensor_contraction4d_kernel", {}, {block={"dd"}, thread={"d"}})
copy_to_texture("A")
copy_to_texture("B")
