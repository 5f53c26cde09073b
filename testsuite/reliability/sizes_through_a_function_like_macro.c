// gpucc-run: FILE -I testsuite/reliability/link
// gpucc-exit: 0
// gpucc-says: checking the same recipe at M=61, N=67
// gpucc-says: verified: both programs print the same
// A whole program at PolyBench's LARGE sizes, its bounds `_PB_N` defined as
// `POLYBENCH_LOOP_BOUND(N, n)`: the check at reduced sizes must shrink `N` and `M`, which
// the arrays and main use too. It shrank `_PB_N`, which the header then redefined: the
// original ran at 2100 x 1900 and the CUDA at 67 x 61, and gpucc reported its own CUDA
// as wrong (exit 3).
#include <stdio.h>
#include "bounds.h"

static void kernel(int m, int n, double ARRAY_2D(A, M, N, m, n), double ARRAY_1D(x, N, n),
                   double ARRAY_1D(y, M, m))
{
#pragma scop
  for (int i = 0; i < _PB_M; i++) {
    y[i] = 0.0;
    for (int j = 0; j < _PB_N; j++)
      y[i] += A[i][j] * x[j];
  }
#pragma endscop
}

static double A[M][N], x[N], y[M];

int main(void)
{
  int m = M, n = N;
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++)
      A[i][j] = (double)((i + j) % 7) / 7.0;
  for (int j = 0; j < N; j++)
    x[j] = 1.0 + j % 3;
  kernel(m, n, A, x, y);
  for (int i = 0; i < m; i++)
    fprintf(stderr, "%.2f\n", y[i]);
  return 0;
}
