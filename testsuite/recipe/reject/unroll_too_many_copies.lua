-- gpucc-args: testsuite/recipe/kernels/matmul.c
-- Unrolling `j` after `k` would write 64 x 64 copies of the statement.
unroll("k")
unroll("j")
