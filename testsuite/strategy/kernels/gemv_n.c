// Matrix-vector product y = A x, A is M x N (one dot product per row).
#define M 4096
#define N 6144

void gemv_n(const float A[M][N], const float x[N], float y[M])
{
  for (int i = 0; i < M; i++) {
    y[i] = 0.0f;
    for (int j = 0; j < N; j++)
      y[i] += A[i][j] * x[j];
  }
}
