-- gpucc-args: testsuite/recipe/kernels/matmul.c
-- A cyclic register tile: a thread's elements of C are 16 apart, not one vector.
tile_by_index({"i", "j"}, {32, 32}, {l1_control="ii", l2_control="jj"}, {"ii", "jj", "i", "j", "k"})
tile_by_index({"i", "j"}, {16, 16}, {l1_control="r", l2_control="q"},
              {"ii", "jj", "i", "j", "k", "r", "q"})
cudaize("matmul_kernel", {}, {block={"ii", "jj"}, thread={"j", "i"}})
copy_to_registers("tx", "C", {width=2})
