-- gpucc-args: testsuite/recipe/kernels/matmul.c -D N=128
-- Wide copies ({width=4}): each thread moves four consecutive floats of A and of B into
-- shared memory with one 128-bit load and one 128-bit store (gpucc_load_vector<float4>).
-- The 256 threads take the tiles' 256 vectors in row-major order: a 64 x 16 tile of A is
-- four vectors a row (`tx / 4`, `tx % 4`), a 16 x 64 tile of B sixteen. The shared
-- arrays are declared __align__(16), and their rows padded by 4 floats keep each vector
-- aligned; gpucc proves the global addresses aligned (rows of 64 floats, tiles at
-- multiples of 16) and every vector whole.
tile_by_index({"i", "j", "k"}, {4, 4, 16},
              {l1_control="t", l1_tile="r", l2_control="s", l2_tile="q", l3_control="kk"},
              {"t", "s", "kk", "r", "q", "k"})
tile_by_index({"t", "s"}, {16, 16}, {l1_control="ii", l2_control="jj"},
              {"ii", "jj", "kk", "t", "s", "k", "r", "q"})
cudaize("matmul_kernel", {}, {block={"ii", "jj"}, thread={"s", "t"}})
copy_to_shared("tx", "A", 4, {width=4})
copy_to_shared("tx", "B", 4, {width=4})
copy_to_registers("kk", "C")
print_code()
