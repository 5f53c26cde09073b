-- gpucc-args: testsuite/recipe/kernels/scale.c
-- The 16 weights go to the constant bank: every thread of a warp reads the same one.
tile_by_index({"i"}, {128}, {l1_control="ii"}, {"ii", "i", "k"})
cudaize("scale_kernel", {}, {block={"ii"}, thread={"i"}})
copy_to_constant("w")
print_code()
