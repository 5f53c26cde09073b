-- gpucc-args: testsuite/recipe/kernels/heat3d.c
-- A stencil's footprint is a cross of shifted boxes, not a box: the copy moves its
-- bounding box, clipped to the array, in one loop nest (the cross's corners are read and
-- never used), instead of the union's pieces.
tile_by_index({"k", "j", "i"}, {16, 4, 8}, {l1_control="kk", l2_control="jj", l3_control="ii"}, {"jj", "kk", "ii", "j", "k", "i"})
cudaize("heat3d_kernel", {}, {block={"kk", "jj"}, thread={"k", "j"}})
copy_to_shared("tx", "A", -16)
print_code()
