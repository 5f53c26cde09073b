-- gpucc-args: testsuite/recipe/kernels/seidel_2d.c
-- The wavefront `t0` = 4t + 2i + j runs on the host; `t` and `i` are parallel inside it.
reschedule("t")
print_code()
tile_by_index({"i"}, {16}, {l1_control="ii"}, {"t0", "t", "ii", "i"})
cudaize("seidel_wave", {}, {block={"ii"}, thread={"i", "t"}})
