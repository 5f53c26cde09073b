// gpucc-args: --recipe recipes/matvec_rows.lua -P TJ=64
// Matrix-vector product, one block per row, with a row length the threads do not divide.
#define M 1000
#define N 777

void matvec(const float A[M][N], const float x[N], float y[M])
{
  for (int i = 0; i < M; i++) {
    y[i] = 0.0f;
    for (int j = 0; j < N; j++)
      y[i] += A[i][j] * x[j];
  }
}
