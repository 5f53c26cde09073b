// gpucc-run: FILE -I testsuite/reliability/link
// gpucc-exit: 4
// gpucc-says: the original C does not link
// gpucc-says: --link FILE
// gpucc-says: is kept; it was not checked
// The same program as linked_source.c without --link: the check cannot build the
// original, says so and how to give it the other file, keeps the .cu and exits with 4,
// never "a bug in gpucc" (issue 20).
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
