-- gpucc-args: testsuite/recipe/kernels/rowsum.c
-- One thread per row; the j reduction stays sequential inside each thread.
tile_by_index({"i"}, {64}, {l1_control="ii"}, {"ii", "i", "j"})
cudaize("rowsum_kernel", {}, {block={"ii"}, thread={"i"}})
print_code()
