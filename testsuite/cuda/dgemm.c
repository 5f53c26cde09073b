// gpucc-args: --recipe recipes/dgemm.lua
// Double-precision matrix product C += A B (seed 004, Fig. 4.1(d)).
#define N 256

void dgemm(const double A[N][N], const double B[N][N], double C[N][N])
{
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      for (int k = 0; k < N; k++)
        C[i][j] += A[i][k] * B[k][j];
}
