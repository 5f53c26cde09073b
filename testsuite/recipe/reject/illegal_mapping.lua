-- gpucc-args: testsuite/recipe/kernels/seidel.c
-- i carries the (1, 0) and (1, -1) flow dependences: its iterations cannot run as
-- parallel blocks.
tile_by_index({"j"}, {16}, {l1_control="jj"}, {"i", "jj", "j"})
cudaize("seidel_kernel", {}, {block={"i", "jj"}, thread={"j"}})
