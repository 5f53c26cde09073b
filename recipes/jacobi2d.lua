-- 2-D Jacobi: the time loop stays on the host; each of its two nests becomes a kernel of
-- TI x TJ tiles (statement numbers choose the nest: both have loops named i and j), each
-- thread computing R rows of its tile, TI / R rows apart (a cyclic tile: R loads in
-- flight per thread, what a memory-bound kernel needs to reach DRAM bandwidth).
TI = param("TI", {8, 16, 32}, 16)
TJ = param("TJ", {32, 64, 128}, 64)
R = param("R", {1, 2, 4, 8}, 8)
tile_by_index(0, {"i", "j"}, {TI, TJ}, {l1_control="ii", l2_control="jj"}, {"ii", "jj", "i", "j"})
tile_by_index(0, {"i"}, {TI / R}, {l1_control="ir"}, {"ii", "jj", "i", "j", "ir"})
tile_by_index(1, {"i", "j"}, {TI, TJ}, {l1_control="ii2", l2_control="jj2"}, {"ii2", "jj2", "i", "j"})
tile_by_index(1, {"i"}, {TI / R}, {l1_control="ir2"}, {"ii2", "jj2", "i", "j", "ir2"})
cudaize(0, "jacobi_stencil", {}, {block={"jj", "ii"}, thread={"j", "i"}})
cudaize(1, "jacobi_copy_back", {}, {block={"jj2", "ii2"}, thread={"j", "i"}})
unroll(0, "ir")
unroll(1, "ir2")
