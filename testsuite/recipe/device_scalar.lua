-- gpucc-args: testsuite/recipe/kernels/scop_total.c
-- `total` is declared before the region and printed after it: it lives in device memory
-- while the region runs, copied in (the sum starts from its value) and out. `sum`, declared
-- in the region, is set to 0 by a serial kernel, summed across threads, and copied out to
-- a host variable declared where the region was.
tile_by_index(1, {"i"}, {128}, {l1_control="ii"}, {"ii", "i"})
cudaize(1, "total_kernel", {}, {block={"ii"}, thread={"i"}, reduce={"total"}})
tile_by_index(2, {"i"}, {128}, {l1_control="ij"}, {"ij", "i"})
cudaize(2, "sum_kernel", {}, {block={"ij"}, thread={"i"}, reduce={"sum"}})
cudaize(0, "sum_init", {}, {})
print_code()
