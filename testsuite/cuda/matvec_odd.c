// gpucc-args: --recipe recipes/matvec.lua -P TI=64 -P TJ=16
// Matrix-vector product with constant sizes that the tiles do not divide.
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
