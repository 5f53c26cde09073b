// gpucc-args: -I testsuite/include
// Whole program: covariance of M variables over N observations, PolyBench style
// (its macros come from a header; the kernel is a #pragma scop region).
#include <stdio.h>
#include <stdlib.h>
#include "mini_polybench.h"

#define M 80
#define N 100

static void kernel_covariance(int m, int n, DATA_TYPE float_n,
                              DATA_TYPE POLYBENCH_2D(data, N, M, n, m),
                              DATA_TYPE POLYBENCH_2D(cov, M, M, m, m),
                              DATA_TYPE POLYBENCH_1D(mean, M, m))
{
  int i, j, k;
#pragma scop
  for (j = 0; j < _PB_M; j++) {
    mean[j] = SCALAR_VAL(0.0);
    for (i = 0; i < _PB_N; i++)
      mean[j] += data[i][j];
    mean[j] /= float_n;
  }
  for (i = 0; i < _PB_N; i++)
    for (j = 0; j < _PB_M; j++)
      data[i][j] -= mean[j];
  for (i = 0; i < _PB_M; i++)
    for (j = i; j < _PB_M; j++) {
      cov[i][j] = SCALAR_VAL(0.0);
      for (k = 0; k < _PB_N; k++)
        cov[i][j] += data[k][i] * data[k][j];
      cov[i][j] /= (float_n - SCALAR_VAL(1.0));
      cov[j][i] = cov[i][j];
    }
#pragma endscop
}

int main(void)
{
  DATA_TYPE (*data)[M] = malloc(sizeof(DATA_TYPE[N][M]));
  DATA_TYPE (*cov)[M] = malloc(sizeof(DATA_TYPE[M][M]));
  DATA_TYPE *mean = malloc(sizeof(DATA_TYPE[M]));
  if (!data || !cov || !mean)
    return 1;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < M; j++)
      data[i][j] = (DATA_TYPE)(i * j) / M;
  kernel_covariance(M, N, (DATA_TYPE)N, data, cov, mean);
  printf("%f\n", cov[1][2]);
  free(data);
  free(cov);
  free(mean);
  return 0;
}
