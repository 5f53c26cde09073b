// gpucc-run: FILE --size n=10
// gpucc-exit: 0
// gpucc-says: verified: every array the code writes is the same
// Found by the random-nest generator (seed 20261128, program 665): `i` counts down on
// the host (`i_rev` in the kernel) and `B[j][j]` is copied to registers; the copy named
// the host loop `i`, the statements' own `i`, so it was loaded only where -i = i, when
// i was 0 (exit 3: the CUDA computed something else).
#include <math.h>

void kernel(int n, float alpha, double A[n + 2][n + 2][n + 2], const int B[n + 2][n + 2], const float C[n + 2])
{
  for (int i = n - 1; i >= 0; i--) {
    for (int j = i + 1; j < (n < i + 3 ? n : i + 3); j++) {
      for (int k = j; k < n; k += 2) {
        A[0][k + 1][k + 2] = C[k + 2] - C[n - 1 - i];
        A[i][j][i] += B[j][j] - 0.5 * A[i][j][0] + 0.75;
        A[j + 1][i + 2][k + 2] += (double)i / 16;
      }
    }
  }
  for (int i = 0; i < n; i += 2) {
    for (int j = i; j < (n < i + 3 ? n : i + 3); j++) {
      A[n - 1 - j][i + 2][j + 1] -= C[i + 1] * (B[i][n - 1 - j]) - 0.25 * A[j + 2][j][j + 1];
      for (int k = 0; k < n; k++) {
        for (int l = 1; l < n - 1; l++) {
          A[i][0][n - 1 - l] *= 0.5;
          A[l][i + 2][i + 1] *= 0.5;
          A[l][k][k] = sqrt(fabs((double)j / 16)) - (double)i / 16 + C[j + 1];
        }
      }
    }
  }
}
