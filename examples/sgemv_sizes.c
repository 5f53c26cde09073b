/* A single-precision matrix-vector product with its sizes as parameters, y = A x (A is
 * m x n, row-major), for `gpucc library` (README, "gpucc library"). */
void sgemv(int m, int n, float y[m], const float A[m][n], const float x[n])
{
  for (int i = 0; i < m; i++) {
    y[i] = 0.0f;
    for (int j = 0; j < n; j++)
      y[i] += A[i][j] * x[j];
  }
}
