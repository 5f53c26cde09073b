// PolyBench's seidel-2d: a 9-point Gauss-Seidel sweep repeated T times. Each element
// reads neighbours updated earlier in the same sweep and in the sweep before: no loop is
// parallel as written. A wavefront over 4t + 2i + j runs the rest in parallel.
#define T 8
#define N 40

void seidel_2d(double A[N][N])
{
  for (int t = 0; t <= T - 1; t++)
    for (int i = 1; i <= N - 2; i++)
      for (int j = 1; j <= N - 2; j++)
        A[i][j] = (A[i - 1][j - 1] + A[i - 1][j] + A[i - 1][j + 1]
                   + A[i][j - 1] + A[i][j] + A[i][j + 1]
                   + A[i + 1][j - 1] + A[i + 1][j] + A[i + 1][j + 1]) / 9.0;
}
