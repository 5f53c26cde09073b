-- gpucc-args: testsuite/recipe/kernels/matmul.c
-- A copied in vectors, then placed in constant memory, which gpucc reads one element at
-- a time (and whose arrays are not known to be 16-byte aligned).
tile_by_index({"i", "j", "k"}, {4, 4, 16},
              {l1_control="t", l1_tile="r", l2_control="s", l2_tile="q", l3_control="kk"},
              {"t", "s", "kk", "r", "q", "k"})
tile_by_index({"t", "s"}, {16, 16}, {l1_control="ii", l2_control="jj"},
              {"ii", "jj", "kk", "t", "s", "k", "r", "q"})
cudaize("matmul_kernel", {}, {block={"ii", "jj"}, thread={"s", "t"}})
copy_to_shared("tx", "A", 4, {width=4})
copy_to_constant("A")
