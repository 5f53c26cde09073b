-- gpucc-args: testsuite/recipe/kernels/three_loops.c
-- Three loops fused into one: each iteration computes b[i], c[i] and d[i] in turn, and
-- the fused loop is parallel (no dependence crosses iterations).
fuse({0, 1, 2}, "i")
print_code()
tile_by_index(0, {"i"}, {64}, {l1_control="ii"}, {"ii", "i"})
cudaize(0, "three_loops_fused", {}, {block={"ii"}, thread={"i"}})
