tile_by_index({"i", "j"}, {1, 1}, {l1_control="ii", l2_control="jj"}, {"ii", "jj", "i", "j"})
cudaize("big_kernel", {}, {block={"jj", "ii"}, thread={"j", "i"}})
