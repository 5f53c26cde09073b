// gpucc-args: --recipe recipes/matvec_rows.lua
// Matrix-vector product y = A x with sizes known only at run time, one block per row.
void matvec(int m, int n, const float A[m][n], const float x[n], float y[m])
{
  for (int i = 0; i < m; i++) {
    y[i] = 0.0f;
    for (int j = 0; j < n; j++)
      y[i] += A[i][j] * x[j];
  }
}
