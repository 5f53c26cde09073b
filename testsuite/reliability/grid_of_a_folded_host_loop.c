// gpucc-run: FILE
// gpucc-exit: 0
// gpucc-says: verified: every array the code writes is the same
// Found by the random-nest generator (seed 20261128, program 1104): isl folds the host
// loop `j` (two values) into two launches that pass 0 and 2, but the grid was written
// with the name `j`, which the host code no longer has (exit 3: the generated C++ did not
// compile). Each launch now writes its grid with the values it passes.
#include <math.h>

#define N0 4
#define N1 3
#define N2 16

void kernel(float alpha, double A[2 * N0 + 2], const float B[N0 + 2][N1 + 2])
{
  int i, j, k, l;
  for (i = 0; i < N1 - 1; i += 2) {
    for (j = 0; j < N2; j++) {
      A[0] -= 0.75;
    }
  }
  for (i = 0; i < N2; i++) {
    for (j = 0; j <= N1 - 1; j += 2) {
      for (k = 0; k < (N2 < i + 3 ? N2 : i + 3); k += 3) {
        for (l = 0; l < (N1 < j + 3 ? N1 : j + 3); l++) {
          if (k + l < N2) {
            A[0] += B[1][N1 - 1 - j];
          }
        }
      }
    }
  }
}
