-- gpucc-args: testsuite/recipe/kernels/matmul.c
-- launch_bounds: the kernel is declared with __launch_bounds__(256, 2), so that ptxas
-- keeps two of its 256-thread blocks' registers on an SM (at most 128 per thread).
tile_by_index({"i", "j"}, {16, 16}, {l1_control="ii", l2_control="jj"}, {"ii", "jj", "i", "j", "k"})
cudaize("matmul_kernel", {}, {block={"ii", "jj"}, thread={"j", "i"}})
launch_bounds("matmul_kernel", 2)
