// Rectangular SGEMM, short and wide: C (M x N) = A (M x K) * B (K x N) with N >> M.
#define M 96
#define N 4096
#define K 768

void gemm_rect_wide(float C[M][N], const float A[M][K], const float B[K][N])
{
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      C[i][j] = 0.0f;
      for (int k = 0; k < K; k++)
        C[i][j] += A[i][k] * B[k][j];
    }
}
