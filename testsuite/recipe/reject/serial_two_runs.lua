-- gpucc-args: testsuite/recipe/kernels/around_loops.c
-- The statements left are before and after the parallel loop: two runs, so a serial
-- kernel needs a statement number to choose one.
tile_by_index(1, {"i"}, {128}, {l1_control="ii"}, {"ii", "i"})
cudaize(1, "scale_kernel", {}, {block={"ii"}, thread={"i"}})
cudaize("scale_serial", {}, {})
