// Rectangular SGEMM, tall and skinny: C (M x N) = A (M x K) * B (K x N) with M >> N.
#define M 8192
#define N 128
#define K 512

void gemm_rect_tall(float C[M][N], const float A[M][K], const float B[K][N])
{
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      C[i][j] = 0.0f;
      for (int k = 0; k < K; k++)
        C[i][j] += A[i][k] * B[k][j];
    }
}
