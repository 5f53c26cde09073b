-- Written by gpucc for function jacobi2d_5pt (the strategy generator of seed 004, Chapters 4-5),
-- for NVIDIA H100 SXM5 80GB.
-- Variant 2 of nest 1: 1-D threads (`j`); global memory only; TX=256.
-- Predicted time on the device: 5.075 ms (emulated, not measured).
-- Replay it with --recipe, or edit it: recipes/README.md documents each command.

-- Nest 1 (line 10): 1-D threads (`j`); global memory only.
-- `j` carries no dependence: threads along x, its tiles over blocks.
-- `j` indexes the last dimension of the arrays: neighbours along x touch neighbours (coalesced).
-- `i` run inside each thread.
TX = param("TX", {64, 128, 256, 512}, 256)
tile_by_index(0, {"j"}, {TX}, {l1_control="jj"}, {"jj", "j", "i"})
cudaize(0, "jacobi2d_5pt_kernel0", {}, {block={"jj"}, thread={"j"}})

-- Nest 2 (line 13): 2-D threads (`j`, `i`); global memory only.
-- `j` carries no dependence: threads along x, its tiles over blocks; `i` too, along y (2-D, as the arrays are).
-- `j` indexes the last dimension of the arrays: neighbours along x touch neighbours (coalesced).
TX1 = param("TX1", {32, 64}, 64)
TY1 = param("TY1", {4, 8, 16}, 4)
tile_by_index(1, {"j", "i"}, {TX1, TY1}, {l1_control="jj1", l2_control="ii1"}, {"ii1", "jj1", "i", "j"})
cudaize(1, "jacobi2d_5pt_kernel1", {}, {block={"jj1", "ii1"}, thread={"j", "i"}})
