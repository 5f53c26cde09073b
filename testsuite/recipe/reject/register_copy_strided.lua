-- gpucc-args: testsuite/recipe/kernels/matmul.c
-- Inside jj, thread tx uses C[i][tx], C[i][tx + 16], ...: elements interleaved with
-- the other threads', not a box of its own.
tile_by_index({"i", "j"}, {16, 16}, {l1_control="ii", l2_control="jj"}, {"ii", "jj", "i", "j", "k"})
cudaize("matmul_kernel", {}, {block={"ii"}, thread={"j", "i"}})
copy_to_registers("jj", "C")
