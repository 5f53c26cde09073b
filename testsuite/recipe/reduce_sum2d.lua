-- gpucc-args: testsuite/recipe/kernels/sum2d.c
-- Blocks of 32 x 8 threads, one block per 8 rows: each thread sums every 32nd element of
-- its row (the jj loop runs inside the thread), and each block adds its rows' sum to
-- total[0]. The tiling keeps the order of the sum (ii, i, jj, j), which tiling needs.
tile_by_index({"i", "j"}, {8, 32}, {l1_control="ii", l2_control="jj"}, {"ii", "i", "jj", "j"})
cudaize("sum2d_kernel", {}, {block={"ii"}, thread={"j", "i"}, reduce={"total"}})
print_code()
