// gpucc-run: FILE
// gpucc-exit: 0
// gpucc-says: verified: every array the code writes is the same
// Found by the random-nest generator: the ranking chose isl's order for this nest, which
// sets `t0` and `t1` at one step of a host loop (one launch each) and reads them at
// another; the kernel read variables no thread of its launch had set, and the check
// refused the `.cu`. Codegen now refuses that order, so the ranking keeps another.
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
