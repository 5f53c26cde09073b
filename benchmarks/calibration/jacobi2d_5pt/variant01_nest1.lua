-- Written by gpucc for function jacobi2d_5pt (the strategy generator of seed 004, Chapters 4-5),
-- for NVIDIA H100 SXM5 80GB.
-- Variant 1 of nest 1: 2-D threads (`j`, `i`); global memory only; TX=64 TY=4.
-- Predicted time on the device: 203.3 us (emulated, not measured).
-- Replay it with --recipe, or edit it: recipes/README.md documents each command.

-- Nest 1 (line 10): 2-D threads (`j`, `i`); global memory only.
-- `j` carries no dependence: threads along x, its tiles over blocks; `i` too, along y (2-D, as the arrays are).
-- `j` indexes the last dimension of the arrays: neighbours along x touch neighbours (coalesced).
TX = param("TX", {32, 64}, 64)
TY = param("TY", {4, 8, 16}, 4)
tile_by_index(0, {"j", "i"}, {TX, TY}, {l1_control="jj", l2_control="ii"}, {"ii", "jj", "i", "j"})
cudaize(0, "jacobi2d_5pt_kernel0", {}, {block={"jj", "ii"}, thread={"j", "i"}})

-- Nest 2 (line 13): 2-D threads (`j`, `i`); global memory only.
-- `j` carries no dependence: threads along x, its tiles over blocks; `i` too, along y (2-D, as the arrays are).
-- `j` indexes the last dimension of the arrays: neighbours along x touch neighbours (coalesced).
TX1 = param("TX1", {32, 64}, 64)
TY1 = param("TY1", {4, 8, 16}, 4)
tile_by_index(1, {"j", "i"}, {TX1, TY1}, {l1_control="jj1", l2_control="ii1"}, {"ii1", "jj1", "i", "j"})
cudaize(1, "jacobi2d_5pt_kernel1", {}, {block={"jj1", "ii1"}, thread={"j", "i"}})
