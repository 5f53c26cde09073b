// gpucc-run: FILE --recipe testsuite/reliability/private_read_in_another_launch_recipe.lua
// gpucc-exit: 1
// gpucc-says: `t1` is set and read in kernel `kernel_rescheduled` by different threads or launches
// The recipe the ranking once chose for this nest (`private_read_in_another_launch.c`):
// isl's order sets `t1` at one step of the host loop `t0_` and reads it at another.
#include <math.h>

#define N0 12
#define N1 3

void kernel(float alpha, float A[N1 + 2], const int B[N0 + 2])
{
  for (int i = 0; i < N0; i++) {
    float t0 = B[i] * ((float)i / 16) - 0.25 * A[0];
    A[1] = t0;
    for (int j = 1; j < N1; j++) {
      A[j + 1] += fabs(sqrt(fabs(0.25 * A[j]))) + B[i] - (float)i / 16;
      A[j + 2] = 1.5f - fabs((float)i / 16);
      if (i <= j) {
        float t1 = B[i + 1] * (B[i] * (B[i + 1])) + 1.5f;
        A[N1 - 1 - j] = t1;
      }
    }
  }
}
