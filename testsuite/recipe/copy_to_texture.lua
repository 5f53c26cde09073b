-- gpucc-args: testsuite/recipe/kernels/scale.c
-- x is read through the read-only data cache.
tile_by_index({"i"}, {128}, {l1_control="ii"}, {"ii", "i", "k"})
cudaize("scale_kernel", {}, {block={"ii"}, thread={"i"}})
copy_to_texture("x")
print_code()
