-- gpucc-args: testsuite/recipe/kernels/rowsum.c
-- j carries the sum into s[i]: mapping it to threads would race on s[i].
tile_by_index({"i", "j"}, {16, 16}, {l1_control="ii", l2_control="jj"}, {"ii", "jj", "i", "j"})
cudaize("rowsum_kernel", {}, {block={"ii"}, thread={"j", "i"}})
