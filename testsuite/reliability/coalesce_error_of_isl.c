// gpucc-run: FILE --size n=11
// gpucc-exit: 0
// gpucc-says: verified: every array the code writes is the same
// Found by the random-nest generator (seed 20261126, program 369): isl 0.27's
// coalescing of the memory-based dependences of these strided nests fails ("total
// dimensionality changed unexpectedly", reported as a bug in gpucc, exit 3); the join is
// now kept uncoalesced when it does.
#include <math.h>

void kernel(int n, float alpha, double A[n + 2][n + 2], const float B[n + 2][n + 2], const float C[n + 2], double D[n + 2][n + 2])
{
  for (int i = 2; i < n; i++) {
    D[i][i + 2] += alpha + B[i + 2][n - 1 - i] * ((double)i / 16);
    for (int j = 0; j < n - 1; j += 3) {
      if (j >= 1) {
        D[n - 1 - j][i + 2] += 0.25 * A[i][j] - 0.5 * D[j][n - 1 - i];
      }
      for (int k = j; k < (n < j + 3 ? n : j + 3); k++) {
        double t0 = fmax(B[0][i + 1], 0.5) + C[k + 1] * (alpha);
        A[k + 2][j + 1] += t0;
      }
      D[j][n - 1 - j] += B[i][j] + C[j];
    }
  }
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < (n < i + 3 ? n : i + 3); j += 2) {
      A[i + 2][j] = fmax(0.75, 0.5) + alpha - 0.5 * D[j + 2][j + 2];
      double t1 = 0.5 * A[n - 1 - j][n - 1 - j];
      A[j + 2][i] = t1;
      A[j + 2][j + 1] = B[i][j + 2] * (0.25 * D[j + 2][j]) - B[n - 1 - i][i + 2];
    }
  }
}
