// Column sums of an M x N matrix: s[j] = sum over i of A[i][j].
#define M 4096
#define N 8192

void col_sums(const float A[M][N], float s[N])
{
  for (int j = 0; j < N; j++)
    s[j] = 0.0f;
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++)
      s[j] += A[i][j];
}
