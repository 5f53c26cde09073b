-- gpucc-args: testsuite/recipe/kernels/lu.c
-- isl's scheduler puts the pivot loop (`t0`, k's values) outermost and finds the row
-- loop `i` parallel: one launch per pivot, a thread per row.
reschedule()
print_code()
tile_by_index({"i"}, {32}, {l1_control="ii"}, {"t0", "ii", "i"})
cudaize("lu_step", {}, {block={"ii"}, thread={"i"}})
print_code()
