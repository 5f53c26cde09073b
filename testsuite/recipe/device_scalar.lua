-- gpucc-args: testsuite/recipe/kernels/scop_total.c
-- `total` is declared before the region and printed after it: it lives in device memory
-- while the region runs, copied in (the sum starts from its value) and out.
tile_by_index({"i"}, {128}, {l1_control="ii"}, {"ii", "i"})
cudaize("total_kernel", {}, {block={"ii"}, thread={"i"}, reduce={"total"}})
