-- gpucc-args: testsuite/recipe/kernels/rowsum.c
-- One block per row: the row's 128 elements are split over 32 threads (j tiled by 32,
-- the tile loop jj runs inside each thread), whose partial sums the block adds to s[i].
tile_by_index({"j"}, {32}, {l1_control="jj"}, {"i", "jj", "j"})
cudaize("rowsum_kernel", {}, {block={"i"}, thread={"j"}, reduce={"s"}})
print_code()
