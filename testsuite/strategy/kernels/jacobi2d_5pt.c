// 2-D five-point Jacobi over TSTEPS time steps on an N x M grid: each step computes B from
// A, then copies B's interior back into A (the boundary stays fixed).
#define TSTEPS 50
#define N 2048
#define M 2048

void jacobi2d_5pt(double A[N][M], double B[N][M])
{
  for (int t = 0; t < TSTEPS; t++) {
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < M - 1; j++)
        B[i][j] = 0.2 * (A[i][j] + A[i - 1][j] + A[i + 1][j] + A[i][j - 1] + A[i][j + 1]);
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < M - 1; j++)
        A[i][j] = B[i][j];
  }
}
