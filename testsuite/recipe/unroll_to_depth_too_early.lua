-- gpucc-args: testsuite/recipe/kernels/matmul.c
-- unroll_to_depth works on kernels: before cudaize it has nothing to do, and says so.
unroll_to_depth(1)
tile_by_index({"i", "j"}, {16, 16}, {l1_control="ii", l2_control="jj"}, {"ii", "jj", "i", "j", "k"})
cudaize("matmul_kernel", {}, {block={"ii", "jj"}, thread={"j", "i"}})
