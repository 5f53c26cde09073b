// gpucc-args: --function band
// The file's own `min` and `max` functions, used by main and by the compiled bounds.
#include <stdio.h>
static int min(int a, int b) { return a < b ? a : b; }
static int max(int a, int b) { return a > b ? a : b; }
float A[100][100];
void band(int n, float A[100][100]) {
  for (int i = 0; i < 100; i++)
    for (int j = max(i - 5, 0); j < min(i + 10, 100); j++)
      A[i][j] = A[i][j] + 1;
}
int main(void) {
  band(100, A);
  printf("%f %d\n", A[3][3], min(1, 2));
  return 0;
}
