// Out-of-place transpose of a rectangular M x N matrix: B = A^T (B is N x M).
#define M 3072
#define N 5120

void transpose_rect(const float A[M][N], float B[N][M])
{
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++)
      B[j][i] = A[i][j];
}
