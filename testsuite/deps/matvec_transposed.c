// Transposed matrix-vector product y = A^T x (A is m x n, y has n elements).
void matvec_transposed(int m, int n, float A[m][n], float x[m], float y[n])
{
  for (int j = 0; j < n; j++) {
    y[j] = 0.0f;
    for (int i = 0; i < m; i++)
      y[j] = y[j] + A[i][j] * x[i];
  }
}
