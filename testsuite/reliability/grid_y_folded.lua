-- Tiles of 4 x 1: 70,000 block rows.
tile_by_index({"i", "j"}, {1, 4}, {l1_control="ii", l2_control="jj"}, {"ii", "jj", "i", "j"})
cudaize("rows_kernel", {}, {block={"jj", "ii"}, thread={"j", "i"}})
