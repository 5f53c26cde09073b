// A region in `main`: `gpucc project` predicts it, but cannot time the C's region apart
// from the rest of the program.
#include <stdio.h>
#define N 256

static float A[N], B[N];

int main(void)
{
  for (int i = 0; i < N; i++)
    A[i] = i;
#pragma scop
  for (int i = 0; i < N; i++)
    B[i] = 2 * A[i];
#pragma endscop
  printf("%f\n", B[N - 1]);
  return 0;
}
