// gpucc-args: --recipe recipes/sgemm_outer.lua -D N=100 -P TI=64 -P RJ=4
// Single-precision matrix product C += A B in the outer-product form (8 x 8 outputs per thread).
#define N 256

void sgemm(const float A[N][N], const float B[N][N], float C[N][N])
{
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      for (int k = 0; k < N; k++)
        C[i][j] += A[i][k] * B[k][j];
}
