-- gpucc-args: testsuite/recipe/kernels/shifted.c
-- The k tiles of A start at 16 kk + 1: a float4 load there is not 16-byte aligned.
tile_by_index({"i", "j", "k"}, {4, 4, 16},
              {l1_control="t", l1_tile="r", l2_control="s", l2_tile="q", l3_control="kk"},
              {"t", "s", "kk", "r", "q", "k"})
tile_by_index({"t", "s"}, {16, 16}, {l1_control="ii", l2_control="jj"},
              {"ii", "jj", "kk", "t", "s", "k", "r", "q"})
cudaize("shifted_kernel", {}, {block={"ii", "jj"}, thread={"s", "t"}})
copy_to_shared("tx", "A", 4, {width=4})
