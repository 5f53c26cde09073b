-- gpucc-args: testsuite/recipe/kernels/matmul.c --limit recipe-depth=8
-- Nesting is bounded before the recipe runs (here to 8 levels).
size = 2 * (1 + (1 + (1 + (1 + (1 + (1 + (1 + (1 + (1 + 1)))))))))
