// gpucc-args: --recipe recipes/jacobi2d.lua
// benchmarks/vendor.py: 2-D 5-point Jacobi, T time steps on an N x N grid of floats, each
// step a stencil into B and a copy back into A (as testsuite/cuda/jacobi2d.c, as a
// function rather than a whole program).
#define T 10
#define N 8192

void jacobi2d(float A[N][N], float B[N][N])
{
  for (int t = 0; t < T; t++) {
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < N - 1; j++)
        B[i][j] = 0.2f * (A[i][j] + A[i - 1][j] + A[i + 1][j] + A[i][j - 1] + A[i][j + 1]);
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < N - 1; j++)
        A[i][j] = B[i][j];
  }
}
