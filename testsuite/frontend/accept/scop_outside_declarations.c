// Declarations outside a #pragma scop region: a size computed from a parameter (`2 * m`
// is a product, not a pointer), and pointers that the region does not use.
#include <stdlib.h>

void f(int m, float A[64][64])
{
  int n = 2 * m;
  float *unused = malloc(4 * sizeof(float));
  int *p = &m;
#pragma scop
  for (int i = 0; i < 64; i++)
    for (int j = 0; j < 64; j++)
      if (i < m && j < n)
        A[i][j] = 0;
#pragma endscop
  free(unused);
  (void)p;
}
