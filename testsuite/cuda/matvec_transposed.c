// gpucc-args: --recipe recipes/matvec_transposed.lua
// Transposed matrix-vector product y = A^T x (seed 004, section 6.2.2).
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
