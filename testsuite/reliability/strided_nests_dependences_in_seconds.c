// gpucc-run: FILE --size n=5
// gpucc-exit: 0
// gpucc-says: verified: every array the code writes is the same
// Found by the random-nest generator (seed 20261125, program 757): isl's dataflow spent
// minutes on the anti-dependences of these strided nests (past 100 s; the isl-operations
// limit would have stopped it after about nine minutes). Memory-based dependences are now
// computed by a join when the dataflow needs more than 500,000 operations: seconds.
#include <math.h>

void kernel(int n, float alpha, int A[2 * n + 2][n + 2][2 * n + 2], int B[n + 2][n + 2], int C[n + 2][n + 2])
{
  for (int i = 1; i < n; i += 2) {
    A[2 * i + 1][n - 1 - i][2 * i] += (B[i + 1][i + 1] / 2 + B[i + 2][i] / 2 + C[i][i + 1] / 2) % 1000;
    for (int j = 0; j < n; j += 2) {
      for (int k = 1; k < n; k++) {
        A[2 * k][0][j + n] += (j) % 1000;
        for (int l = 0; l < k; l++) {
          A[2 * j][k + 2][2 * l + 1] += (B[k + 2][l + 1] / 2) % 1000;
        }
        A[2 * i + 1][0][2 * j] += (A[2 * j][j + 2][2 * k] / 2 + B[i][j] / 2) % 1000;
      }
    }
  }
  for (int i = 2; i < n; i++) {
    int t0 = B[n - 1 - i][i + 1] / 2;
    B[i + 1][i + 2] = (t0) % 1000;
    for (int j = 1; j < n; j += 3) {
      int t1 = B[n - 1 - i][i] / 2 + B[n - 1 - i][i] / 2 + B[i][i] / 2;
      B[i][n - 1 - j] += (t1) % 1000;
    }
  }
  for (int i = 0; i < n; i++) {
    A[i + n][i][2 * i] += (B[i][i + 2] / 2 + B[n - 1 - i][i] / 2 + 1) % 1000;
  }
}
