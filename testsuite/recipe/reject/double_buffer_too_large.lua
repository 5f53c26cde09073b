-- gpucc-args: testsuite/recipe/kernels/matmul.c -D N=1024
-- Two buffers of 64 x 256 floats of A and of B: 256 KB, beyond the 227 KB the largest
-- GPU (sm_90) gives one block.
tile_by_index({"i", "j", "k"}, {4, 4, 256},
              {l1_control="t", l1_tile="r", l2_control="s", l2_tile="q", l3_control="kk"},
              {"t", "s", "kk", "r", "q", "k"})
tile_by_index({"t", "s"}, {16, 16}, {l1_control="ii", l2_control="jj"},
              {"ii", "jj", "kk", "t", "s", "k", "r", "q"})
cudaize("matmul_kernel", {}, {block={"ii", "jj"}, thread={"s", "t"}})
copy_to_shared("tx", "A", 0)
copy_to_shared("tx", "B", 0)
double_buffer("kk")
