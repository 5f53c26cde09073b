-- gpucc-args: testsuite/recipe/kernels/matmul.c
-- A misspelt key would otherwise be ignored, and the loop named by default.
tile_by_index({"i"}, {16}, {l1_contrl="ii"})
