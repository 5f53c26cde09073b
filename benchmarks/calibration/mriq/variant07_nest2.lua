-- Written by gpucc for function mriq (the strategy generator of seed 004, Chapters 4-5),
-- for NVIDIA H100 SXM5 80GB.
-- Variant 6 of nest 2: 1-D threads (`v`); x, y, z in registers; ky in constant memory; kx, kz through the read-only cache; TX=256.
-- Predicted time on the device: 434.8 us (emulated, not measured).
-- Replay it with --recipe, or edit it: recipes/README.md documents each command.

-- Nest 1 (line 14): 1-D threads (`k`); phiR, phiI through the read-only cache.
-- `k` carries no dependence: threads along x, its tiles over blocks.
-- `k` indexes the last dimension of the arrays: neighbours along x touch neighbours (coalesced).
-- `phiR`, `phiI` only read: through the read-only data cache (`__ldg`, §5.4 step 3).
TX = param("TX", {64, 128, 256, 512}, 256)
tile_by_index(0, {"k"}, {TX}, {l1_control="kk"}, {"kk", "k"})
cudaize(0, "mriq_kernel0", {}, {block={"kk"}, thread={"k"}})
copy_to_texture("phiR")
copy_to_texture("phiI")

-- Nest 2 (line 16): 1-D threads (`v`); x, y, z in registers; ky in constant memory; kx, kz through the read-only cache.
-- `v` carries no dependence: threads along x, its tiles over blocks.
-- `v` indexes the last dimension of the arrays: neighbours along x touch neighbours (coalesced).
-- each thread reads the same element of `x` on every iteration of its inner loops: kept in registers (§5.4 step 2).
-- each thread reads the same element of `y` on every iteration of its inner loops: kept in registers (§5.4 step 2).
-- each thread reads the same element of `z` on every iteration of its inner loops: kept in registers (§5.4 step 2).
-- `ky` (4096 bytes) is read-only and read at the same address by all threads: constant memory broadcasts it.
-- `kx`, `kz` only read: through the read-only data cache (`__ldg`, §5.4 step 3).
TX1 = param("TX1", {64, 128, 256, 512}, 256)
tile_by_index(5, {"v"}, {TX1}, {l1_control="vv1"}, {"vv1", "v"})
cudaize(5, "mriq_kernel1", {}, {block={"vv1"}, thread={"v"}})
copy_to_registers("tx", "x")
copy_to_registers("tx", "y")
copy_to_registers("tx", "z")
copy_to_constant("ky")
copy_to_texture("kx")
copy_to_texture("kz")
