-- gpucc-args: testsuite/recipe/kernels/seidel.c
-- Interchanging i and j would run A[i][j] before A[i-1][j+1], which it reads.
permute({"j", "i"})
