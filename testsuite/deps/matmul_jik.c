// Matrix product C += A * B in loop order jik.
#define N 128

void matmul_jik(float A[N][N], float B[N][N], float C[N][N])
{
  for (int j = 0; j < N; j++)
    for (int i = 0; i < N; i++)
      for (int k = 0; k < N; k++)
        C[i][j] += A[i][k] * B[k][j];
}
