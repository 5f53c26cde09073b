// A scalar declared in the body of `i` is private to `i`: each iteration has its own, and
// a distributed `i` would split its definition from its uses. gpucc leaves `i` whole.
#define N 256

void private_scalar(float B[N][N], const float A[N][N], const float x[N])
{
  for (int i = 0; i < N; i++) {
    float s = x[i] * x[i];
    for (int j = 0; j < N; j++)
      B[i][j] = s * A[i][j];
  }
}
