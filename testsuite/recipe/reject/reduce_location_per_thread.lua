-- gpucc-args: testsuite/recipe/kernels/rowsum.c
-- One thread per row: each thread owns its s[i], and there is nothing to combine.
tile_by_index({"i"}, {64}, {l1_control="ii"}, {"ii", "i", "j"})
cudaize("rowsum_kernel", {}, {block={"ii"}, thread={"i"}, reduce={"s"}})
