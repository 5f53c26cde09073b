-- 2-D Jacobi: the time loop stays on the host; each of its two nests becomes a kernel of
-- 16 x 16 blocks (statement numbers choose the nest: both have loops named i and j).
TI = param("TI", {8, 16, 32}, 16)
TJ = param("TJ", {16, 32, 64}, 16)
tile_by_index(0, {"i", "j"}, {TI, TJ}, {l1_control="ii", l2_control="jj"}, {"ii", "jj", "i", "j"})
tile_by_index(1, {"i", "j"}, {TI, TJ}, {l1_control="ii2", l2_control="jj2"}, {"ii2", "jj2", "i", "j"})
cudaize(0, "jacobi_stencil", {}, {block={"ii", "jj"}, thread={"j", "i"}})
cudaize(1, "jacobi_copy_back", {}, {block={"ii2", "jj2"}, thread={"j", "i"}})
