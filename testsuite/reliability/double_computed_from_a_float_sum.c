// gpucc-run: FILE
// gpucc-exit: 0
// gpucc-says: B  224 elements
// gpucc-says: verified: every array the code writes is the same
// Found by the random-nest generator (seed 20261129, program 3505): the first nest's sum
// into the float A[1][1] is split over threads (another order, 5e-7 off, within float's
// tolerance), and the second nest computes the double B from A: B inherits the float's
// rounding (4e-7 off), which the check held to double's 1e-9 and called a bug in gpucc. A
// double array computed from the code's float results is now held to float's tolerance.
#include <math.h>

#define N0 12
#define N1 14
#define N2 14

void kernel(float alpha, float A[N0 + 2][N1 + 2], double B[N0 + 2][N1 + 2], const int C[N1 + 2][N2 + 2][2 * N0 + 2])
{
  for (int i = 0; i < N2; i++) {
    for (int j = 2; j < N1; j++) {
      B[0][N1 - 1 - j] = (double)j / 16 + C[N1 - 1 - j][0][1] + sin(C[0][0][0] * (alpha));
      if (i <= j) {
        A[1][1] -= fabs(sqrt(fabs(1.5f))) - C[j + 2][i + 2][0];
      }
    }
  }
  for (int i = 0; i <= N2 - 1; i++) {
    for (int j = 2; j < N0 - 1; j += 2) {
      for (int k = 1; k <= i; k += 3) {
        B[j][0] = (double)j / 16 + C[0][i][2 * j] * (0.5 * B[j][0]) - 0.5 * A[j + 2][0];
        if (j <= k) {
          A[j][0] += C[1][k][2 * j] - 0.25 * A[1][1];
        }
        double t0 = alpha - 0.5 * B[j][1] - 0.75;
        B[j + 2][0] = t0;
      }
    }
  }
}

/* gpucc said:
exit 3
gpucc: wrote /tmp/gpucc-testsuite-29258/3505-nest.cu (2 kernels: kernel_kernel0, kernel_serial)
gpucc: chose parallel sum over `j`; C through the read-only cache; TX=512 TR=4 among 7 candidates; predicted 101.4 us on the NVIDIA H100 SXM5 80GB (estimate, not measured)
gpucc: note: lines 21-26 run in one GPU thread (correct, but slow): every loop of the nest at line 18 carries a dependence
gpucc: checking /tmp/gpucc-testsuite-29258/3505-nest.cu against /tmp/gpucc-testsuite-29258/3505-nest.c (function kernel) on the CPU
error: the CUDA gpucc generated does not compute what the C computes; it was moved to /tmp/gpucc-testsuite-29258/3505-nest.cu.rejected
  = note: this is a bug in gpucc; please report it with the C file (and the recipe)
  = hint: --no-verify keeps the file anyway
*/
