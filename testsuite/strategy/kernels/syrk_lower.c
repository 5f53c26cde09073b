// SYRK on the lower triangle (j <= i): C = alpha * A * A^T + beta * C, A is N x K.
#define N 1024
#define K 768

void syrk_lower(float alpha, float beta, float C[N][N], const float A[N][K])
{
  for (int i = 0; i < N; i++)
    for (int j = 0; j <= i; j++) {
      C[i][j] *= beta;
      for (int k = 0; k < K; k++)
        C[i][j] += alpha * A[i][k] * A[j][k];
    }
}
