// 2-D Gauss-Seidel, nine-point, in place over TSTEPS sweeps (PolyBench seidel-2d): every
// point uses neighbours already updated in the same sweep.
#define TSTEPS 20
#define N 2000

void gauss_seidel2d(double A[N][N])
{
  for (int t = 0; t < TSTEPS; t++)
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < N - 1; j++)
        A[i][j] = (A[i - 1][j - 1] + A[i - 1][j] + A[i - 1][j + 1]
                   + A[i][j - 1] + A[i][j] + A[i][j + 1]
                   + A[i + 1][j - 1] + A[i + 1][j] + A[i + 1][j + 1]) / 9.0;
}
