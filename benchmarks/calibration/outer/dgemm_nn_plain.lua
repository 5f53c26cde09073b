-- Written by gpucc for function dgemm_nn (the strategy generator of seed 004, Chapters 4-5),
-- for NVIDIA H100 SXM5 80GB.
-- Variant 1 of nest 1: 2-D threads (`j`, `i`); A, B in shared memory; C in registers; TX=64 TY=4 TK=16.
-- Predicted time on the device: 1.499 ms (emulated, not measured).
-- Replay it with --recipe, or edit it: recipes/README.md documents each command.

-- The nest (line 8): 2-D threads (`j`, `i`); A, B in shared memory; C in registers.
-- `j` carries no dependence: threads along x, its tiles over blocks; `i` too, along y (2-D, as the arrays are).
-- `j` indexes the last dimension of the arrays: neighbours along x touch neighbours (coalesced).
-- `A` is read-only and the threads of a block read the same elements: staged once per block in shared memory (§5.4 step 1).
-- `B` is read-only and the threads of a block read the same elements: staged once per block in shared memory (§5.4 step 1).
-- each thread updates the same elements of `C` on every iteration of its inner loops: kept in registers (§5.4 step 2).
TX = param("TX", {32, 64}, 64)
TY = param("TY", {4, 8, 16}, 4)
TK = param("TK", {8, 16, 32, 64}, 16)
tile_by_index({"j", "i", "k"}, {TX, TY, TK}, {l1_control="jj", l2_control="ii", l3_control="kk"}, {"ii", "jj", "kk", "i", "j", "k"})
cudaize("dgemm_nn_kernel", {}, {block={"jj", "ii"}, thread={"j", "i"}})
copy_to_shared("tx", "A", -16)
copy_to_shared("tx", "B", -16)
copy_to_registers("kk", "C")
