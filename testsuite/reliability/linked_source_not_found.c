// gpucc-run: FILE -I testsuite/reliability/link --link testsuite/reliability/link/no_such_file.c
// gpucc-exit: 4
// gpucc-says: cannot read --link testsuite/reliability/link/no_such_file.c
// gpucc-says: is kept; it was not checked
// A --link file that does not exist: the check cannot run (exit 4), and says which file.
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
