/* Found slow by the nest fuzzer (seed 20261130, program 4488): gpucc compiles it in 10.7 s
 * (--no-verify) and checks it in 12.1 s at e26a47b on the 2-core machine, over the 10 s
 * bound of issue 18. Kept for profiling the compile (issue 20). Run: gpucc FILE.c --size n=13 */
/* gpucc nest fuzzer, seed 7950823667166161163, program 4488: gpucc FILE.c --size n=13 */
#include <math.h>

void kernel(int n, float alpha, double A[n + 2][2 * n + 2][2 * n + 2], double B[n + 2][n + 2][n + 2], int C[n + 2])
{
  for (int i = 1; i < n; i += 3) {
    for (int j = 1; j < n; j++) {
      for (int k = 2; k < n - 1; k += 3) {
        for (int l = 2; l < (n < k + 3 ? n : k + 3); l++) {
          B[0][i][n - 1 - l] += alpha;
          double t0 = alpha;
          A[l][2 * j][2 * k + 1] = t0;
        }
      }
      A[0][0][2 * i] += 0.25 * B[j][j][i + 1];
    }
    C[i + 1] -= (C[i] / 2 + i) % 1000;
  }
  for (int i = 1; i < n; i++) {
    for (int j = i; j <= i; j++) {
      for (int k = j + 1; k < n; k++) {
        B[k][i][j + 1] = alpha + 0.75 - 0.5 * A[n - 1 - k][2 * j][0];
      }
    }
  }
  for (int i = 0; i < n; i++) {
    C[n - 1 - i] = (2) % 1000;
    for (int j = 0; j < n; j += 2) {
      A[i][i + n][2 * i] = (double)i / 16 - alpha + (double)i / 16;
    }
    C[i] += (C[n - 1 - i] / 2 + C[0] / 2) % 1000;
  }
}
