// Matrix product C += A * B in loop order kji.
#define N 128

void matmul_kji(float A[N][N], float B[N][N], float C[N][N])
{
  for (int k = 0; k < N; k++)
    for (int j = 0; j < N; j++)
      for (int i = 0; i < N; i++)
        C[i][j] += A[i][k] * B[k][j];
}
