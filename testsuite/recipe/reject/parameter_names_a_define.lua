-- gpucc-args: testsuite/recipe/kernels/matmul.c -P N=32
-- N is the C file's #define: -P would change it here but not in the C code.
tile_by_index({"i"}, {N / 4}, {l1_control="ii"}, {"ii", "i", "j", "k"})
