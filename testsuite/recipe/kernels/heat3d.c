// One step of a 3-D seven-point heat stencil, B from A (the footprint of a tile of B is a
// cross of seven shifted boxes of A).
#define N 34

void heat3d(float A[N][N][N], float B[N][N][N])
{
  for (int i = 1; i < N - 1; i++)
    for (int j = 1; j < N - 1; j++)
      for (int k = 1; k < N - 1; k++)
        B[i][j][k] = A[i][j][k]
                     + 0.125f * (A[i + 1][j][k] - 2.0f * A[i][j][k] + A[i - 1][j][k])
                     + 0.125f * (A[i][j + 1][k] - 2.0f * A[i][j][k] + A[i][j - 1][k])
                     + 0.125f * (A[i][j][k + 1] - 2.0f * A[i][j][k] + A[i][j][k - 1]);
}
