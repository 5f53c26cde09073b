// SYRK on the lower triangle: C = A * A^T (j <= i). A block's tile of C reads two tiles of
// rows of A, as far apart as the block is from the diagonal.
#define N 48
#define K 16

void syrk(float C[N][N], const float A[N][K])
{
  for (int i = 0; i < N; i++)
    for (int j = 0; j <= i; j++)
      for (int k = 0; k < K; k++)
        C[i][j] += A[i][k] * A[j][k];
}
