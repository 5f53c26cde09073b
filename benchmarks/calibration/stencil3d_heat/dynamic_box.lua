-- benchmarks/calibration (added by hand, 2026-11-29): gpucc's own choice for
-- testsuite/strategy/kernels/stencil3d_heat.c at 8264cff, where its 64 x 4 x 64 boxes of A and B
-- (106,128 bytes a block) first went to dynamic shared memory; at TX=32 TK=32 (and TX1, TK1)
-- the choice before (16 KB, static). Written by gpucc, from its snapshot
-- testsuite/strategy/snapshots/generated_recipe@kernels__stencil3d_heat.c.snap.
-- Nest 1 (line 9): 2-D threads (`k`, `j`); A in shared memory.
-- `k` carries no dependence: threads along x, its tiles over blocks; `j` too, along y (2-D, as the arrays are).
-- `k` indexes the last dimension of the arrays: neighbours along x touch neighbours (coalesced).
-- `i` run inside each thread.
-- neighbouring threads read overlapping parts of `A`: staged once per block in shared memory (§4.2.2).
TX = param("TX", {32, 64}, 64)
TY = param("TY", {4, 8, 16}, 4)
TK = param("TK", {8, 16, 32, 64}, 64)
tile_by_index(0, {"k", "j", "i"}, {TX, TY, TK}, {l1_control="kk", l2_control="jj", l3_control="ii"}, {"jj", "kk", "ii", "j", "k", "i"})
cudaize(0, "stencil3d_heat_kernel0", {}, {block={"kk", "jj"}, thread={"k", "j"}})
copy_to_shared("tx", "A", -16)

-- Nest 2 (line 16): 2-D threads (`k`, `j`); B in shared memory.
-- `k` carries no dependence: threads along x, its tiles over blocks; `j` too, along y (2-D, as the arrays are).
-- `k` indexes the last dimension of the arrays: neighbours along x touch neighbours (coalesced).
-- `i` run inside each thread.
-- neighbouring threads read overlapping parts of `B`: staged once per block in shared memory (§4.2.2).
TX1 = param("TX1", {32, 64}, 64)
TY1 = param("TY1", {4, 8, 16}, 4)
TK1 = param("TK1", {8, 16, 32, 64}, 64)
tile_by_index(1, {"k", "j", "i"}, {TX1, TY1, TK1}, {l1_control="kk1", l2_control="jj1", l3_control="ii1"}, {"jj1", "kk1", "ii1", "j", "k", "i"})
cudaize(1, "stencil3d_heat_kernel1", {}, {block={"kk1", "jj1"}, thread={"k", "j"}})
copy_to_shared("tx", "B", -16)
