// Lower-triangular matrix-vector product: y = L x, reading only L[i][j] with j <= i.
#define N 4096

void trmv_lower(const double L[N][N], const double x[N], double y[N])
{
  for (int i = 0; i < N; i++) {
    y[i] = 0.0;
    for (int j = 0; j <= i; j++)
      y[i] += L[i][j] * x[j];
  }
}
