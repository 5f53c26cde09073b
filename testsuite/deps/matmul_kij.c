// Matrix product C += A * B in loop order kij.
#define N 128

void matmul_kij(float A[N][N], float B[N][N], float C[N][N])
{
  for (int k = 0; k < N; k++)
    for (int i = 0; i < N; i++)
      for (int j = 0; j < N; j++)
        C[i][j] += A[i][k] * B[k][j];
}
