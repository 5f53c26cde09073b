// 3-D heat equation, seven-point stencil, explicit time steps (PolyBench heat-3d style):
// A -> B, then B -> A, so each time step advances twice; the faces stay fixed.
#define TSTEPS 20
#define N 256

void stencil3d_heat(float A[N][N][N], float B[N][N][N])
{
  for (int t = 0; t < TSTEPS; t++) {
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < N - 1; j++)
        for (int k = 1; k < N - 1; k++)
          B[i][j][k] = A[i][j][k]
                       + 0.125f * (A[i + 1][j][k] - 2.0f * A[i][j][k] + A[i - 1][j][k])
                       + 0.125f * (A[i][j + 1][k] - 2.0f * A[i][j][k] + A[i][j - 1][k])
                       + 0.125f * (A[i][j][k + 1] - 2.0f * A[i][j][k] + A[i][j][k - 1]);
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < N - 1; j++)
        for (int k = 1; k < N - 1; k++)
          A[i][j][k] = B[i][j][k]
                       + 0.125f * (B[i + 1][j][k] - 2.0f * B[i][j][k] + B[i - 1][j][k])
                       + 0.125f * (B[i][j + 1][k] - 2.0f * B[i][j][k] + B[i][j - 1][k])
                       + 0.125f * (B[i][j][k + 1] - 2.0f * B[i][j][k] + B[i][j][k - 1]);
  }
}
