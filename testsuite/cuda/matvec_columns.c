// gpucc-args: --recipe recipes/matvec_columns.lua
// Transposed matrix-vector product y = A^T x: coalesced columns, the sum over rows split over blocks.
#define M 2048
#define N 1024

void matvec_transposed(const float A[M][N], const float x[M], float y[N])
{
  for (int j = 0; j < N; j++) {
    y[j] = 0.0f;
    for (int i = 0; i < M; i++)
      y[j] += A[i][j] * x[i];
  }
}
