// LU decomposition without pivoting, in place, row by row (PolyBench lu, Doolittle form):
// the strict lower triangle becomes L (unit diagonal implied), the upper triangle U.
#define N 2000

void lu_nopivot(double A[N][N])
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
