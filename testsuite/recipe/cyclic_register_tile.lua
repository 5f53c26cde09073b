-- gpucc-args: testsuite/recipe/kernels/matmul.c
-- A cyclic register tile (seed 004 §4.4, Fig. 4.1(e)): each thread of a 16 x 16 block
-- computes 2 x 2 elements of a 32 x 32 tile of C, 16 apart (rows ty and ty + 16, columns
-- tx and tx + 16), so that neighbouring threads touch neighbouring elements. The tile
-- loops `i` and `j` (the threads) run outside their control loops `r` and `q`, which
-- then step from tile to tile; the register copy holds the thread's 4 elements, 16 apart.
tile_by_index({"i", "j"}, {32, 32}, {l1_control="ii", l2_control="jj"}, {"ii", "jj", "i", "j", "k"})
tile_by_index({"i", "j"}, {16, 16}, {l1_control="r", l2_control="q"},
              {"ii", "jj", "i", "j", "k", "r", "q"})
cudaize("matmul_kernel", {}, {block={"ii", "jj"}, thread={"j", "i"}})
copy_to_registers("tx", "C")
unroll_to_depth(2)
print_code()
