// gpucc-run: FILE
// gpucc-exit: 0
// gpucc-says: verified: both programs print the same (4 lines)
// With sizes known only at run time, the value an index keeps depends on them: none of
// the loop's iterations may run (it keeps its first value), or the inner loop may not run
// in the last outer iteration.
#include <stdio.h>
float A[100][100];
void f(int n, int m) {
  int i = -2, j = -1;
#pragma scop
  for (i = 0; i < n && i < 100; i++)
    for (j = 0; j < i - 5 && j < m && j < 100; j++)
      A[i][j] = A[i][j] * 2;
#pragma endscop
  printf("%d %d\n", i, j);
}
int main(void) {
  f(50, 30);
  f(3, 7);
  f(0, 0);
  f(60, 70);
  return 0;
}
