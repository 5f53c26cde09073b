-- gpucc-args: testsuite/recipe/kernels/big_table.c
tile_by_index({"i"}, {256}, {l1_control="ii"}, {"ii", "i"})
cudaize("lookup_kernel", {}, {block={"ii"}, thread={"i"}})
copy_to_constant("table")
