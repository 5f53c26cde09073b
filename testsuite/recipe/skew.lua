-- gpucc-args: testsuite/recipe/kernels/wavefront.c
-- A Gauss-Seidel sweep as a wavefront: skewing j by i makes the dependences (1, 0) and
-- (0, 1) into (1, 1) and (0, 1); with the skewed loop outside, it carries both, and the
-- elements of one anti-diagonal (one value of j + i) run in parallel.
skew("j", "i", 1)
permute({"j", "i"})
print_code()
tile_by_index({"i"}, {32}, {l1_control="ii"}, {"j", "ii", "i"})
cudaize("wavefront_diagonal", {}, {block={"ii"}, thread={"i"}})
print_code()
