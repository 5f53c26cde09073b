// Matrix-vector product y = A x with symbolic sizes.
void matvec(int m, int n, float A[m][n], float x[n], float y[m])
{
  for (int i = 0; i < m; i++) {
    y[i] = 0.0f;
    for (int j = 0; j < n; j++)
      y[i] += A[i][j] * x[j];
  }
}
