// Row sums of an M x N matrix: s[i] = sum over j of A[i][j].
#define M 8192
#define N 4096

void row_sums(const float A[M][N], float s[M])
{
  for (int i = 0; i < M; i++) {
    s[i] = 0.0f;
    for (int j = 0; j < N; j++)
      s[i] += A[i][j];
  }
}
