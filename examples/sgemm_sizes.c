/* A single-precision matrix product with its sizes as parameters, C = alpha A B + beta C
 * (C is m x n, A is m x k, B is k x n, row-major): the form a library takes, since its
 * entry point receives the sizes at run time. `gpucc library examples/sgemm_sizes.c
 * --sizes 'm,n,k=256..4096*4' -o sgemm_lib/` tunes it per size (README, "gpucc library"). */
void sgemm(int m, int n, int k, float alpha, float beta, float C[m][n], const float A[m][k],
           const float B[k][n])
{
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++) {
      C[i][j] *= beta;
      for (int p = 0; p < k; p++)
        C[i][j] += alpha * A[i][p] * B[p][j];
    }
}
