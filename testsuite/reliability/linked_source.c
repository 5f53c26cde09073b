// gpucc-run: FILE -I testsuite/reliability/link --link testsuite/reliability/link/fill.c
// gpucc-exit: 0
// gpucc-says: verified: both programs print the same (16 lines)
// A program whose helpers live in another file (PolyBench's utilities/polybench.c):
// --link builds that file into both programs of the check, and what the program prints
// on standard error is compared too.
#include "fill.h"
#define N 16

int main(void)
{
  float a[N], b[N];
  fill(N, a);
#pragma scop
  for (int i = 0; i < N; i++)
    b[i] = 2.0f * a[i] + 1.0f;
#pragma endscop
  print_sum(N, b);
  return 0;
}
