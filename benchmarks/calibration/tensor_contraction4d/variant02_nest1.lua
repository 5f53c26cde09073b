-- Written by gpucc for function tensor_contraction4d (the strategy generator of seed 004, Chapters 4-5),
-- for NVIDIA H100 SXM5 80GB.
-- Variant 2 of nest 1: 2-D threads (`d`, `c`); A, B through the read-only cache; TX=32 TY=16.
-- Predicted time on the device: 3.0 us (emulated, not measured).
-- Replay it with --recipe, or edit it: recipes/README.md documents each command.

-- The nest (line 13): 2-D threads (`d`, `c`); A, B through the read-only cache.
-- `d` carries no dependence: threads along x, its tiles over blocks; `c` too, along y (2-D, as the arrays are).
-- `d` indexes the last dimension of the arrays: neighbours along x touch neighbours (coalesced).
-- `a`, `b` run inside each thread.
-- `A`, `B` only read: through the read-only data cache (`__ldg`, §5.4 step 3).
TX = param("TX", {32}, 32)
TY = param("TY", {16}, 16)
tile_by_index({"d", "c"}, {TX, TY}, {l1_control="dd", l2_control="cc"}, {"cc", "dd", "c", "d", "a", "b"})
cudaize("tensor_contraction4d_kernel", {}, {block={"dd", "cc"}, thread={"d", "c"}})
copy_to_texture("A")
copy_to_texture("B")
