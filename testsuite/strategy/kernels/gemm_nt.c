// SGEMM with B transposed: C = alpha * A * B^T + beta * C, B stored as N x N with B[j][k].
#define N 1024

void gemm_nt(float alpha, float beta, float C[N][N], const float A[N][N], const float B[N][N])
{
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      C[i][j] *= beta;
      for (int k = 0; k < N; k++)
        C[i][j] += alpha * A[i][k] * B[j][k];
    }
}
