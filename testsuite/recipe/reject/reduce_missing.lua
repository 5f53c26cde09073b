-- gpucc-args: testsuite/deps/dot.c
-- The sum's loop on blocks and threads without `reduce=`: refused, with a hint that says how.
tile_by_index(1, {"i"}, {256}, {l1_control="ii"}, {"ii", "i"})
cudaize(1, "dot_kernel", {}, {block={"ii"}, thread={"i"}})
