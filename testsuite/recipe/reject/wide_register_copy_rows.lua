-- gpucc-args: testsuite/strategy/kernels/gemm_nn.c -D N=66
-- Rows of 66 floats: a float4 load of a thread's second row of C would not be aligned.
tile_by_index({"i", "j", "k"}, {4, 4, 16},
              {l1_control="t", l1_tile="r", l2_control="s", l2_tile="q", l3_control="kk"},
              {"t", "s", "kk", "r", "q", "k"})
tile_by_index({"t", "s"}, {16, 16}, {l1_control="ii", l2_control="jj"},
              {"ii", "jj", "kk", "t", "s", "k", "r", "q"})
cudaize("gemm_nn_kernel", {}, {block={"ii", "jj"}, thread={"s", "t"}})
copy_to_registers("kk", "C", {width=4})
