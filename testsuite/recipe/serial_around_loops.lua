-- gpucc-args: testsuite/recipe/kernels/around_loops.c
-- The loop runs in parallel; the statements before and after it run in serial kernels,
-- launched in program order. `scale` lives in device memory, where the first kernel sets it
-- and the second reads it.
tile_by_index(1, {"i"}, {128}, {l1_control="ii"}, {"ii", "i"})
cudaize(1, "scale_kernel", {}, {block={"ii"}, thread={"i"}})
cudaize(0, "scale_init", {}, {})
cudaize(2, "scale_ends", {}, {})
print_code()
