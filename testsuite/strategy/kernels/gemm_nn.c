// SGEMM, both operands as stored: C = alpha * A * B + beta * C (all N x N, row-major).
#define N 1024

void gemm_nn(float alpha, float beta, float C[N][N], const float A[N][N], const float B[N][N])
{
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      C[i][j] *= beta;
      for (int k = 0; k < N; k++)
        C[i][j] += alpha * A[i][k] * B[k][j];
    }
}
