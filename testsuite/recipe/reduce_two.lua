-- gpucc-args: testsuite/recipe/kernels/moments.c
-- Two sums in one loop: each has its own partial result and its own combination at the
-- end of the kernel.
tile_by_index({"i"}, {128}, {l1_control="ii"}, {"ii", "i"})
cudaize("moments_kernel", {}, {block={"ii"}, thread={"i"}, reduce={"sum", "squares"}})
print_code()
