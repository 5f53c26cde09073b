-- gpucc-args: testsuite/recipe/kernels/extremes.c
-- A maximum of floats and a minimum of doubles (CUDA has no atomic for them: gpucc writes
-- a compare-and-swap loop), each split across 64-thread blocks, and a sum of ints in
-- blocks of 40 threads, combined by a tree in shared memory.
tile_by_index(0, {"i"}, {64}, {l1_control="ia"}, {"ia", "i"})
cudaize(0, "top_kernel", {}, {block={"ia"}, thread={"i"}, reduce={"top"}})
tile_by_index(1, {"i"}, {64}, {l1_control="ib"}, {"ib", "i"})
cudaize(1, "low_kernel", {}, {block={"ib"}, thread={"i"}, reduce={"low"}})
tile_by_index(2, {"i"}, {40}, {l1_control="ic"}, {"ic", "i"})
cudaize(2, "count_kernel", {}, {block={"ic"}, thread={"i"}, reduce={"count"}})
print_code()
