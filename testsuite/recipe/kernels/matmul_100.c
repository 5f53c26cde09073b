// C += A B with sizes that tiles of 16 or 32 do not divide.
#define N 100

void matmul(const float A[N][N], const float B[N][N], float C[N][N])
{
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      for (int k = 0; k < N; k++)
        C[i][j] += A[i][k] * B[k][j];
}
