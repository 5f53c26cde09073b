-- gpucc-args: testsuite/recipe/kernels/short_sum.c
-- A sum split across threads needs an atomic addition on its type: none for `short`.
tile_by_index({"i"}, {64}, {l1_control="ii"}, {"ii", "i"})
cudaize("short_sum_kernel", {}, {block={"ii"}, thread={"i"}, reduce={"total"}})
