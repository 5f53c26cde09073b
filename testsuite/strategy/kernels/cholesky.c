// PolyBench's Cholesky factorisation, in its i-j-k order: every loop carries a dependence
// and `i` holds statements of its own. In the order isl's scheduler finds, a pivot loop
// runs on the host around three parts: the pivot's square root (one thread), its column
// (parallel over the rows) and the update of the trailing triangle (parallel over both).
#include <math.h>
#define N 256

void cholesky(double A[N][N])
{
  for (int i = 0; i < N; i++) {
    for (int j = 0; j < i; j++) {
      for (int k = 0; k < j; k++)
        A[i][j] -= A[i][k] * A[j][k];
      A[i][j] /= A[j][j];
    }
    for (int k = 0; k < i; k++)
      A[i][i] -= A[i][k] * A[i][k];
    A[i][i] = sqrt(A[i][i]);
  }
}
