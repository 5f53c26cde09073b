// Transposed matrix-vector product y = A^T x, A is M x N, y has N elements
// (each output walks a column of A).
#define M 6144
#define N 4096

void gemv_t(const float A[M][N], const float x[M], float y[N])
{
  for (int j = 0; j < N; j++) {
    y[j] = 0.0f;
    for (int i = 0; i < M; i++)
      y[j] += A[i][j] * x[i];
  }
}
