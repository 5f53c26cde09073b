// LU decomposition in place, without pivoting.
#define N 200

void lu(double A[N][N])
{
  for (int k = 0; k < N; k++) {
    for (int i = k + 1; i < N; i++) {
      A[i][k] = A[i][k] / A[k][k];
      for (int j = k + 1; j < N; j++)
        A[i][j] -= A[i][k] * A[k][j];
    }
  }
}
