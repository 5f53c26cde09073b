tile_by_index({"i", "j"}, {16, 16}, {l1_control="ii", l2_control="jj"}, {"ii", "jj", "i", "j", "k"})
cudaize("gemm_kernel", {}, {block={"jj", "ii"}, thread={"j", "i"}})
