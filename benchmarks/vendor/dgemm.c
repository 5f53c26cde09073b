// gpucc-args: --recipe recipes/dgemm.lua
// benchmarks/vendor.py: double-precision matrix product C += A B, row-major, C of M x N,
// A of M x K, B of K x N (as testsuite/cuda/dgemm.c, with the three sizes apart).
#define M 1024
#define N 1024
#define K 1024

void dgemm(const double A[M][K], const double B[K][N], double C[M][N])
{
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++)
      for (int k = 0; k < K; k++)
        C[i][j] += A[i][k] * B[k][j];
}
