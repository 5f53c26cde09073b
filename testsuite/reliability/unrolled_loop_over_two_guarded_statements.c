// gpucc-run: FILE
// gpucc-exit: 0
// gpucc-says: verified: every array the code writes is the same
// Found by the random-nest generator (seed 20261128, program 1553): the first nest runs
// in one thread, unrolled; `j` runs over 5 values for i = 2, but each statement under it
// over 4 (`if (j >= 1)`, `if (i + j < 5)`), and unrolling counted per statement, so the
// iteration j = 4 was dropped (exit 3). The count is now over every statement at once.
#include <math.h>

#define N0 5

void kernel(float alpha, double A[N0 + 2][N0 + 2][N0 + 2], const double B[N0 + 2], double C[N0 + 2][N0 + 2][2 * N0 + 2])
{
  for (int i = 1; i < N0 - 1; i++) {
    for (int j = 0; j < (N0 < i + 3 ? N0 : i + 3); j++) {
      if (j >= 1) {
        double t0 = B[i + 2] * (sqrt(fabs(0.75)));
        A[j][j + 1][j] *= 0.5;
      }
      if (j >= 1) {
        A[i + 1][i][i] = 0.5 * A[j][i][0] + B[i] - B[j + 1];
      }
      if (i + j < N0) {
        double t1 = fabs(0.25 * C[j][N0 - 1 - i][0]) - sqrt(fabs(fabs((double)j / 16)));
        C[j + 2][i][2 * j] = t1;
      }
    }
    A[i][i][i] = 0.5 * A[0][i][N0 - 1 - i] + B[i + 1] * ((double)i / 16);
  }
  for (int i = 0; i < N0; i++) {
    C[i + 1][i + 1][2 * i + 1] = alpha - 0.5 * A[i + 2][i][i];
    double t2 = fabs(0.25 * C[i][i][i + N0]);
    C[i + 2][0][2 * i] *= 0.5;
  }
}
