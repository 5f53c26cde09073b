// Row sums, checked against the atomic CUDA beside it.
#define N 64
void rowsum(const float A[N][N], float s[N])
{
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      s[i] += A[i][j];
}
