-- gpucc-args: testsuite/strategy/kernels/gemm_nn.c -D N=128
-- C = alpha * A * B + beta * C with each thread's 4 x 4 tile of C in registers, loaded and
-- stored four floats at a time ({width=4}: one 128-bit load or store a row). The copy is
-- at `kk`, and the statement beside that loop in the same thread (C[i][j] *= beta, line 8)
-- uses the copy too: the tile is loaded once, before the scaling, and stored once, after
-- the last k step, instead of a read and a write of C in global memory on each side.
-- gpucc proves the vectors aligned (rows of 128 floats, a thread's columns start at
-- multiples of 4).
tile_by_index({"i", "j", "k"}, {4, 4, 16},
              {l1_control="t", l1_tile="r", l2_control="s", l2_tile="q", l3_control="kk"},
              {"t", "s", "kk", "r", "q", "k"})
tile_by_index({"t", "s"}, {16, 16}, {l1_control="ii", l2_control="jj"},
              {"ii", "jj", "kk", "t", "s", "k", "r", "q"})
cudaize("gemm_nn_kernel", {}, {block={"ii", "jj"}, thread={"s", "t"}})
copy_to_shared("tx", "A", 4, {width=4})
copy_to_shared("tx", "B", 4, {width=4})
copy_to_registers("kk", "C", {width=4})
print_code()
