// PolyBench's LU decomposition (no pivoting), in its i-j-k order: every loop of it carries
// a dependence as written. Reordered with k outermost (isl's scheduler finds it), the
// rows below the pivot are updated in parallel.
#define N 40

void lu(double A[N][N])
{
  for (int i = 0; i < N; i++) {
    for (int j = 0; j < i; j++) {
      for (int k = 0; k < j; k++)
        A[i][j] -= A[i][k] * A[k][j];
      A[i][j] /= A[j][j];
    }
    for (int j = i; j < N; j++)
      for (int k = 0; k < i; k++)
        A[i][j] -= A[i][k] * A[k][j];
  }
}
