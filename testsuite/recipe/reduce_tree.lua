-- gpucc-args: testsuite/deps/dot.c
-- Blocks of 24 threads are not a whole number of warps: their partial sums are combined
-- by a tree in shared memory instead of warp shuffles.
tile_by_index(1, {"i"}, {24}, {l1_control="ii"}, {"ii", "i"})
cudaize(1, "dot_kernel", {}, {block={"ii"}, thread={"i"}, reduce={"sum"}})
cudaize(0, "dot_init", {}, {})
cudaize(2, "dot_finish", {}, {})
print_code()
