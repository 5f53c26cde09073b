-- gpucc-args: testsuite/recipe/kernels/syrk.c
-- The copy of A moves the two tiles of rows the block reads (its rows `i` and its rows
-- `j`), not the box around them, which spans every row in between.
tile_by_index({"j", "i", "k"}, {16, 4, 8}, {l1_control="jj", l2_control="ii", l3_control="kk"}, {"ii", "jj", "kk", "i", "j", "k"})
cudaize("syrk_kernel", {}, {block={"jj", "ii"}, thread={"j", "i"}})
copy_to_shared("tx", "A", -16)
print_code()
