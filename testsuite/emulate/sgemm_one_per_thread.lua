-- SGEMM with one element of C per thread and nothing staged: the baseline the tiled
-- recipe (recipes/sgemm.lua) must beat.
tile_by_index({"i", "j"}, {16, 16}, {l1_control="ii", l2_control="jj"}, {"ii", "jj", "i", "j", "k"})
cudaize("sgemm_kernel", {}, {block={"ii", "jj"}, thread={"j", "i"}})
