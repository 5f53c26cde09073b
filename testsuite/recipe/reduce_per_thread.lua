-- gpucc-args: testsuite/recipe/kernels/rowsum.c
-- One thread per row, and the row's 128 elements split over 4 blocks along y (j tiled by
-- 32, the tile loop jj on blockIdx.y): each thread sums its 32 elements and adds them to
-- its own s[i] atomically; there is nothing to combine within a block.
tile_by_index({"i", "j"}, {64, 32}, {l1_control="ii", l2_control="jj"}, {"ii", "jj", "i", "j"})
cudaize("rowsum_kernel", {}, {block={"ii", "jj"}, thread={"i"}, reduce={"s"}})
print_code()
