// The function of call_the_compiler_dropped.c as a region of a program with its own
// `main`: the check runs the program as written, compiled as the driver is.
#include <stdio.h>
#define N 5
void kernel(int C[N + 2][N + 2])
{
#pragma scop
  for (int i = 0; i < N; i++)
    C[N - 1 - i][i] = C[0][i] + C[i][0] + C[i + 2][i];
#pragma endscop
}

int main(void)
{
  static int C[N + 2][N + 2];
  for (int i = 0; i < N + 2; i++)
    for (int j = 0; j < N + 2; j++)
      C[i][j] = (i * 7 + j * 3) % 10;
  kernel(C);
  for (int i = 0; i < N + 2; i++)
    printf("%d %d\n", C[i][0], C[0][i]);
  return 0;
}
