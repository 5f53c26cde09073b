// gesummv (PolyBench): y = alpha * A x + beta * B x, two matrix-vector products fused in
// one nest, with a temporary for the first.
#define N 4096

void gesummv(float alpha, float beta, const float A[N][N], const float B[N][N],
             const float x[N], float tmp[N], float y[N])
{
  for (int i = 0; i < N; i++) {
    tmp[i] = 0.0f;
    y[i] = 0.0f;
    for (int j = 0; j < N; j++) {
      tmp[i] += A[i][j] * x[j];
      y[i] += B[i][j] * x[j];
    }
    y[i] = alpha * tmp[i] + beta * y[i];
  }
}
