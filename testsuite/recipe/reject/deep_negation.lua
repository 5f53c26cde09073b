-- gpucc-args: testsuite/recipe/kernels/matmul.c --limit recipe-depth=8
-- Operators nest without parentheses too.
size = - - - - - - - - - - 16
