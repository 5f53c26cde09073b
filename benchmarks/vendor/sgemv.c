// gpucc-args: --recipe recipes/matvec_rows.lua
// benchmarks/vendor.py: single-precision matrix-vector product y = A x, A of M x N
// row-major (as testsuite/cuda/matvec.c, with #define sizes instead of run-time ones).
#define M 4096
#define N 4096

void sgemv(const float A[M][N], const float x[N], float y[M])
{
  for (int i = 0; i < M; i++) {
    y[i] = 0.0f;
    for (int j = 0; j < N; j++)
      y[i] += A[i][j] * x[j];
  }
}
