// gpucc-run: FILE --no-verify
// gpucc-exit: 0
// gpucc-says: isl's scheduler gave no order (none found in 2000 ms of processor time, the limit `scheduler-milliseconds`)
// The nest fuzzer's seed 7950823667166161235, program 168: isl's scheduler took 30 s on
// its second nest (a compile of 31 s), and a program of the same campaign ran in it for
// more than 25 minutes. isl's operation budget bounds that search only coarsely (a
// million operations took 31 s here), so the strategy generator gives it 2 s of processor
// time and keeps the nest's other strategies where that is not enough.
#include <math.h>

#define N0 11

void kernel(float alpha, float A[N0 + 2], float B[2 * N0 + 2][N0 + 2])
{
  for (int i = N0 - 1; i >= 1; i--) {
    for (int j = i + 1; j < N0; j += 3) {
      for (int k = 0; k <= N0 - 1; k++) {
        float t0 = 0.5 * B[2 * k][k + 2] + alpha - sin(alpha);
        B[2 * i][j] = t0;
        for (int l = k; l < N0; l++) {
          A[i + 1] = 0.5 * B[2 * j + 1][k + 1] + 1.5f - 0.5 * A[0];
          B[2 * k][i + 2] = sin(alpha) - 1.5f + (float)i / 16;
          if (k + l < N0) {
            A[k] = fabs(0.25 * A[N0 - 1 - j]) + 0.25 * B[2 * j][k] - alpha;
          }
        }
        B[1][k + 1] = 0.25 * B[2 * k][i];
      }
    }
    B[2 * i + 1][N0 - 1 - i] = 0.5 * B[2 * i][i];
  }
  for (int i = 0; i < N0; i++) {
    B[2 * i][i] *= 0.5;
    for (int j = 1; j < (N0 < i + 3 ? N0 : i + 3); j++) {
      for (int k = 0; k <= j; k += 2) {
        float t1 = 0.25 * A[1];
        A[k + 2] -= t1;
        if (j <= k) {
          B[2 * i][j] *= 0.5;
        }
        float t2 = alpha;
        A[k] += t2;
      }
    }
  }
  for (int i = 0; i < N0; i++) {
    for (int j = i; j <= i; j++) {
      B[2 * j][0] += sqrt(fabs(alpha));
      if (i + j < N0) {
        float t3 = (float)i / 16;
        B[2 * i][j] = t3;
      }
      if (i <= j) {
        float t4 = 1.5f - 1.5f - alpha;
        A[i] = t4;
      }
    }
  }
}
