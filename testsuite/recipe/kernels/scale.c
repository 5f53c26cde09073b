// y = a x + y scaled by a small table of weights: small inputs for the read-only copies.
#define N 4096
#define W 16

void scale(const float w[W], const float x[N], float y[N])
{
  for (int i = 0; i < N; i++)
    for (int k = 0; k < W; k++)
      y[i] += w[k] * x[i];
}
