-- gpucc-args: testsuite/recipe/kernels/seidel.c
-- Only the loops inside `j` are rescheduled; `i` (which carries the dependences) stays
-- outside, so nothing constrains `j`'s instances and isl keeps it as it was.
reschedule("j")
print_code()
tile_by_index({"j"}, {32}, {l1_control="jj"}, {"i", "jj", "j"})
cudaize("seidel_rows", {}, {block={"jj"}, thread={"j"}})
