-- The l loop on threads and blocks; i and j stay on the host.
tile_by_index({"l"}, {32}, {l1_control="ll"}, {"i", "j", "ll", "l"})
cudaize("kernel_kernel", {}, {block={"ll"}, thread={"l"}})
