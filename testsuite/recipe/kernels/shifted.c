// C += A' B where A' is A shifted by one column: the k tiles of A start one element past
// a multiple of 16 (a wide copy of them would not be aligned).
#define N 64

void shifted(const float A[N][N + 4], const float B[N][N], float C[N][N])
{
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      for (int k = 0; k < N; k++)
        C[i][j] += A[i][k + 1] * B[k][j];
}
