// gpucc-run: FILE --recipe testsuite/reliability/recipe_verify_at_reduced_sizes.lua --verify
// gpucc-exit: 0
// gpucc-says: checking the same recipe at N=67
// gpucc-says: verified: every array the code writes is the same
// With a recipe, `--verify` checks the recipe at reduced sizes, as the check of gpucc's
// own recipe does (a 1024^3 product once took 397 s to check at full size).
#define N 1024
void gemm(float C[N][N], const float A[N][N], const float B[N][N]) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      for (int k = 0; k < N; k++)
        C[i][j] += A[i][k] * B[k][j];
}
