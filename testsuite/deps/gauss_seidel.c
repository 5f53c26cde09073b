// Gauss-Seidel sweeps: every point uses values updated earlier in the same sweep.
#define N 256
#define T 10

void gauss_seidel(double A[N][N])
{
  for (int t = 0; t < T; t++)
    for (int i = 1; i <= N - 2; i++)
      for (int j = 1; j <= N - 2; j++)
        A[i][j] = (A[i - 1][j] + A[i][j - 1] + A[i][j] + A[i + 1][j] + A[i][j + 1]) / 5.0;
}
