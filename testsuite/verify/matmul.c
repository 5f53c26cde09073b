// C = A B on 64 x 64 matrices, checked against the hand-written CUDA beside it.
#define N 64

void matmul(const float A[N][N], const float B[N][N], float C[N][N])
{
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      C[i][j] = 0.0f;
      for (int k = 0; k < N; k++)
        C[i][j] += A[i][k] * B[k][j];
    }
}
