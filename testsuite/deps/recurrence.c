// A recurrence down the columns: each row depends on the one above it.
#define N 400

void recurrence(float A[N][N], const float B[N][N])
{
  for (int i = 1; i < N; i++)
    for (int j = 0; j < N; j++)
      A[i][j] = A[i - 1][j] + B[i][j];
}
