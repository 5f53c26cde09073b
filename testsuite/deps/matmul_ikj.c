// Matrix product C += A * B in loop order ikj.
#define N 128

void matmul_ikj(float A[N][N], float B[N][N], float C[N][N])
{
  for (int i = 0; i < N; i++)
    for (int k = 0; k < N; k++)
      for (int j = 0; j < N; j++)
        C[i][j] += A[i][k] * B[k][j];
}
