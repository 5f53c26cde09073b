-- gpucc-args: testsuite/deps/dot.c
-- `x` is only read in the kernel: there is nothing to combine.
tile_by_index(1, {"i"}, {256}, {l1_control="ii"}, {"ii", "i"})
cudaize(1, "dot_kernel", {}, {block={"ii"}, thread={"i"}, reduce={"x"}})
