-- gpucc-args: testsuite/recipe/kernels/seidel_2d.c
-- The time loop stays outermost, but inside one sweep A[i][j] reads A[i - 1][j + 1],
-- written just before: interchanging i and j would run the read first. The sweeps keep
-- the dependences between them; the check must still find the one inside a sweep.
permute({"t", "j", "i"})
