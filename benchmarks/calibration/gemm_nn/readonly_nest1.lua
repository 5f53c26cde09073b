-- Written by gpucc for function gemm_nn (the strategy generator of seed 004, Chapters 4-5),
-- for NVIDIA H100 SXM5 80GB.
-- Variant 4 of nest 1: 2-D threads (`j`, `i`); C in registers; A, B through the read-only cache; TX=64 TY=4.
-- Predicted time on the device: 60.8 us (emulated, not measured).
-- Replay it with --recipe, or edit it: recipes/README.md documents each command.

-- The nest (line 6): 2-D threads (`j`, `i`); C in registers; A, B through the read-only cache.
-- `j` carries no dependence: threads along x, its tiles over blocks; `i` too, along y (2-D, as the arrays are).
-- `j` indexes the last dimension of the arrays: neighbours along x touch neighbours (coalesced).
-- each thread updates the same elements of `C` on every iteration of its inner loops: kept in registers (§5.4 step 2).
-- `A`, `B` only read: through the read-only data cache (`__ldg`, §5.4 step 3).
TX = param("TX", {32, 64}, 64)
TY = param("TY", {4, 8, 16}, 4)
tile_by_index({"j", "i"}, {TX, TY}, {l1_control="jj", l2_control="ii"}, {"ii", "jj", "i", "j"})
cudaize("gemm_nn_kernel", {}, {block={"jj", "ii"}, thread={"j", "i"}})
copy_to_registers("tx", "C")
copy_to_texture("A")
copy_to_texture("B")
