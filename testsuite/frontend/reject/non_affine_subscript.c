#define N 32
void f(float A[N * N], const float B[N][N])
{
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      A[i * j] = B[i][j];
}
