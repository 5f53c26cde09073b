// Triangular matrix product, out of place: B = alpha * L * X where L (M x M) is lower
// triangular (only k <= i is read) and X is M x N.
#define M 1024
#define N 1536

void trmm_lower(float alpha, const float L[M][M], const float X[M][N], float B[M][N])
{
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      B[i][j] = 0.0f;
      for (int k = 0; k <= i; k++)
        B[i][j] += L[i][k] * X[k][j];
      B[i][j] *= alpha;
    }
}
