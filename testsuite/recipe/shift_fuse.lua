-- gpucc-args: testsuite/recipe/kernels/two_loops.c
-- The second loop shifted by one iteration, then fused with the first: each iteration
-- computes b[i] and then c[i - 1], which reads b[i - 1] and b[i]. One thread runs the
-- fused loop (it carries the dependence on b).
shift(1, "i", 1)
fuse({0, 1}, "i")
print_code()
cudaize("two_loops_fused", {}, {})
