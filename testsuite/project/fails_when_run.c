// The function around the region aborts when called: `gpucc project` says the C could
// not be timed, and why.
#include <stdlib.h>

void scale(int n, float A[n])
{
  if (n > 0)
    abort();
#pragma scop
  for (int i = 0; i < n; i++)
    A[i] = 2 * A[i];
#pragma endscop
}
