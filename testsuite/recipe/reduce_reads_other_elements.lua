-- gpucc-args: testsuite/deps/trisolve.c
-- Forward substitution with `i` on the host: the sum over `j` reads `x[j]` besides the
-- element `x[i]` it updates, which `reduce=` allows because for `j < i` no read ever
-- touches `x[i]` (isl proves it for the instances of one launch). The statements of `i`'s
-- own body run in serial kernels at each iteration.
tile_by_index(1, {"j"}, {128}, {l1_control="jj"}, {"i", "jj", "j"})
cudaize(1, "sum_kernel", {}, {block={"jj"}, thread={"j"}, reduce={"x"}})
cudaize(0, "start", {}, {})
cudaize(2, "divide", {}, {})
print_code()
