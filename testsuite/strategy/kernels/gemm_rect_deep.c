// Rectangular SGEMM with a long reduction: C (M x N) = A (M x K) * B (K x N) with K >> M, N
// (a small output, few threads, much work per element).
#define M 256
#define N 192
#define K 16384

void gemm_rect_deep(float C[M][N], const float A[M][K], const float B[K][N])
{
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      C[i][j] = 0.0f;
      for (int k = 0; k < K; k++)
        C[i][j] += A[i][k] * B[k][j];
    }
}
