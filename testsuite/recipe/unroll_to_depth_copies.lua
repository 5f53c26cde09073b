-- gpucc-args: testsuite/recipe/kernels/contraction.c
-- unroll_to_depth(2) opens `f` and `e` (64 copies of the update), but not `a` as well:
-- with its 32 iterations that would make 2048 copies, more than unrolling writes (1024).
-- It warns and says why.
tile_by_index({"c"}, {32}, {l1_control="cc"}, {"cc", "c", "a"})
cudaize("contraction_kernel", {}, {block={"cc"}, thread={"c"}})
unroll_to_depth(2)
