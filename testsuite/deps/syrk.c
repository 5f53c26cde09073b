// Symmetric rank-k update of the lower triangle: C = alpha A A^T + beta C.
#define N 120
#define K 80

void syrk(float alpha, float beta, float C[N][N], const float A[N][K])
{
  for (int i = 0; i < N; i++) {
    for (int j = 0; j <= i; j++)
      C[i][j] *= beta;
    for (int k = 0; k < K; k++)
      for (int j = 0; j <= i; j++)
        C[i][j] += alpha * A[i][k] * A[j][k];
  }
}
