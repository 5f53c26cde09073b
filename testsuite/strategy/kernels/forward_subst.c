// Forward substitution: solve L x = b for lower-triangular L (row-oriented: each x[i] needs
// all x[j] with j < i).
#define N 4096

void forward_subst(const double L[N][N], const double b[N], double x[N])
{
  for (int i = 0; i < N; i++) {
    x[i] = b[i];
    for (int j = 0; j < i; j++)
      x[i] -= L[i][j] * x[j];
    x[i] = x[i] / L[i][i];
  }
}
