-- gpucc-args: testsuite/recipe/kernels/trisolve_self.c
-- `x[j]` is `x[i]` at `j = i`: the threads' partial sums would hide the value that read
-- must see, so `reduce=` is refused.
tile_by_index(0, {"j"}, {128}, {l1_control="jj"}, {"i", "jj", "j"})
cudaize(0, "sum_kernel", {}, {block={"jj"}, thread={"j"}, reduce={"x"}})
