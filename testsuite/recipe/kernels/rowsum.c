// Row sums: s[i] accumulates over j, so j carries a reduction.
#define M 256
#define N 128

void rowsum(const float A[M][N], float s[M])
{
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++)
      s[i] += A[i][j];
}
