-- Written by gpucc for function stencil3d_heat (the strategy generator of seed 004, Chapters 4-5),
-- for NVIDIA H100 SXM5 80GB.
-- Variant 2 of nest 1: 1-D threads (`k`); global memory only; TX=128.
-- Predicted time on the device: 40.947 ms (emulated, not measured).
-- Replay it with --recipe, or edit it: recipes/README.md documents each command.

-- Nest 1 (line 9): 1-D threads (`k`); global memory only.
-- `k` carries no dependence: threads along x, its tiles over blocks.
-- `k` indexes the last dimension of the arrays: neighbours along x touch neighbours (coalesced).
-- `i`, `j` run inside each thread.
TX = param("TX", {64, 128}, 128)
tile_by_index(0, {"k"}, {TX}, {l1_control="kk"}, {"kk", "k", "i", "j"})
cudaize(0, "stencil3d_heat_kernel0", {}, {block={"kk"}, thread={"k"}})

-- Nest 2 (line 16): 2-D threads (`k`, `j`); global memory only.
-- `k` carries no dependence: threads along x, its tiles over blocks; `j` too, along y (2-D, as the arrays are).
-- `k` indexes the last dimension of the arrays: neighbours along x touch neighbours (coalesced).
-- `i` run inside each thread.
TX1 = param("TX1", {32, 64}, 64)
TY1 = param("TY1", {4, 8, 16}, 4)
tile_by_index(1, {"k", "j"}, {TX1, TY1}, {l1_control="kk1", l2_control="jj1"}, {"jj1", "kk1", "j", "k", "i"})
cudaize(1, "stencil3d_heat_kernel1", {}, {block={"kk1", "jj1"}, thread={"k", "j"}})
