/* Calls the SGEMM library that `gpucc library examples/sgemm_sizes.c ... -o sgemm_lib/`
 * writes, as any C program would: build the library with `make -C sgemm_lib`, then
 *   nvcc -O2 -Isgemm_lib examples/call_sgemm.c sgemm_lib/libsgemm.a -o call_sgemm
 * (nvcc links the CUDA runtime; with gcc, add -lcudart -lstdc++). The arrays are in host
 * memory. */
#include <stdio.h>
#include <stdlib.h>
#include "sgemm.h"

int main(void)
{
  int m = 1000, n = 1000, k = 1000;
  float *A = malloc(sizeof(float) * m * k), *B = malloc(sizeof(float) * k * n);
  float *C = malloc(sizeof(float) * m * n);
  for (int e = 0; e < m * k; e++)
    A[e] = (float)(e % 7) / 7.0f;
  for (int e = 0; e < k * n; e++)
    B[e] = (float)(e % 5) / 5.0f;
  for (int e = 0; e < m * n; e++)
    C[e] = 0.0f;
  printf("size class %d\n", sgemm_size_class(m, n, k));
  sgemm(m, n, k, 1.0f, 0.0f, C, A, B);
  double checksum = 0;
  for (int e = 0; e < m * n; e++)
    checksum += C[e];
  printf("checksum %.1f\n", checksum);
  free(A);
  free(B);
  free(C);
  return 0;
}
