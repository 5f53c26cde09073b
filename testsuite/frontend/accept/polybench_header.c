// gpucc-args: -I testsuite/include -D N=40 --function kernel_atax
// PolyBench-style code: types, array parameters and bounds from header macros, an -D
// override of the file's size, and a file with several functions.
#include <stdio.h>
#include "mini_polybench.h"

#define M 38
#define N 42

static void kernel_atax(int m, int n, DATA_TYPE POLYBENCH_2D(A, M, N, m, n),
                        DATA_TYPE POLYBENCH_1D(x, N, n), DATA_TYPE POLYBENCH_1D(y, N, n),
                        DATA_TYPE POLYBENCH_1D(tmp, M, m))
{
  int i, j;
#pragma scop
  for (i = 0; i < _PB_N; i++)
    y[i] = 0;
  for (i = 0; i < _PB_M; i++) {
    tmp[i] = SCALAR_VAL(0.0);
    for (j = 0; j < _PB_N; j++)
      tmp[i] = tmp[i] + A[i][j] * x[j];
    for (j = 0; j < _PB_N; j++)
      y[j] = y[j] + A[i][j] * tmp[i];
  }
#pragma endscop
}

int main(void)
{
  static double A[M][N], x[N], y[N], tmp[M];
  kernel_atax(M, N, A, x, y, tmp);
  printf("%f\n", y[0]);
  return 0;
}
