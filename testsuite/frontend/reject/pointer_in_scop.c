#include <stdlib.h>
#define N 64
int main(void)
{
  double (*A)[N] = malloc(sizeof(double) * N * N);
#pragma scop
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      A[i][j] = i + j;
#pragma endscop
  free(A);
  return 0;
}
