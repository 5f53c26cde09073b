// gpucc-args: --recipe recipes/matvec_columns.lua
// benchmarks/vendor.py: transposed single-precision matrix-vector product y = A^T x, A of
// M x N row-major (as testsuite/cuda/matvec_transposed.c).
#define M 4096
#define N 4096

void sgemv_t(const float A[M][N], const float x[M], float y[N])
{
  for (int j = 0; j < N; j++) {
    y[j] = 0.0f;
    for (int i = 0; i < M; i++)
      y[j] += A[i][j] * x[i];
  }
}
