// SGEMM with A transposed: C = alpha * A^T * B + beta * C, A stored as N x N with A[k][i].
#define N 1024

void gemm_tn(float alpha, float beta, float C[N][N], const float A[N][N], const float B[N][N])
{
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      C[i][j] *= beta;
      for (int k = 0; k < N; k++)
        C[i][j] += alpha * A[k][i] * B[k][j];
    }
}
