// gpucc-run: FILE
// gpucc-exit: 0
// gpucc-says: verified: both programs print the same (1 line)
// Loop indices declared before a region keep, after it, the values the C leaves in them:
// one step past the last iteration (a triangular loop, a stride, a loop counting down).
#include <stdio.h>
#define N 100
float A[N][N];
int main(void) {
  int i, j, k = 5;
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      A[i][j] = i + j;
  i = 7;
  j = 9;
#pragma scop
  for (i = 0; i < N - 3; i++)
    for (j = i; j < N; j += 3)
      A[i][j] = A[i][j] * 2;
  for (k = N - 1; k >= 10; k--)
    A[k][0] = A[k][0] + 1;
#pragma endscop
  printf("%d %d %d %f\n", i, j, k, A[5][7]);
  return 0;
}
