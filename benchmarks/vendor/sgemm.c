// gpucc-args: --recipe recipes/sgemm_outer.lua
// benchmarks/vendor.py: single-precision matrix product C += A B, row-major, C of M x N,
// A of M x K, B of K x N (as testsuite/cuda/sgemm.c, with the three sizes apart so that
// -D M=4096 -D N=1024 -D K=4096 makes a rectangular product).
#define M 1024
#define N 1024
#define K 1024

void sgemm(const float A[M][K], const float B[K][N], float C[M][N])
{
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++)
      for (int k = 0; k < K; k++)
        C[i][j] += A[i][k] * B[k][j];
}
