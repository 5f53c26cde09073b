// atax (PolyBench): y = A^T (A x), A is M x N, as two nests: tmp = A x, then y = A^T tmp.
#define M 3800
#define N 4200

void atax(const double A[M][N], const double x[N], double tmp[M], double y[N])
{
  for (int i = 0; i < M; i++) {
    tmp[i] = 0.0;
    for (int j = 0; j < N; j++)
      tmp[i] += A[i][j] * x[j];
  }
  for (int j = 0; j < N; j++) {
    y[j] = 0.0;
    for (int i = 0; i < M; i++)
      y[j] += A[i][j] * tmp[i];
  }
}
