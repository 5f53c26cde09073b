// gpucc-args: --recipe recipes/jacobi2d.lua -D N=100 -D T=3
// Whole program: 2-D Jacobi iteration; the time loop stays on the host around launches.
#include <stdio.h>
#include <math.h>

#define T 50
#define N 256

static double A[N][N];
static double B[N][N];

int main(void)
{
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      A[i][j] = sin(i * 0.1) + cos(j * 0.3);

#pragma scop
  for (int t = 0; t < T; t++) {
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < N - 1; j++)
        B[i][j] = 0.2 * (A[i][j] + A[i - 1][j] + A[i + 1][j] + A[i][j - 1] + A[i][j + 1]);
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < N - 1; j++)
        A[i][j] = B[i][j];
  }
#pragma endscop

  double checksum = 0;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      checksum += A[i][j];
  printf("checksum %.6f\n", checksum);
  return 0;
}
