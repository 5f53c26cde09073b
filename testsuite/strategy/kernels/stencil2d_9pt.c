// One sweep of a 2-D nine-point stencil (the 3 x 3 box with weights 4 / 2 / 1 for the
// centre / edges / corners, normalised by 16) from A into B, no time loop.
#define N 4096
#define M 4096

void stencil2d_9pt(const float A[N][M], float B[N][M])
{
  for (int i = 1; i < N - 1; i++)
    for (int j = 1; j < M - 1; j++)
      B[i][j] = 0.0625f * (4.0f * A[i][j]
                           + 2.0f * (A[i - 1][j] + A[i + 1][j] + A[i][j - 1] + A[i][j + 1])
                           + A[i - 1][j - 1] + A[i - 1][j + 1] + A[i + 1][j - 1] + A[i + 1][j + 1]);
}
