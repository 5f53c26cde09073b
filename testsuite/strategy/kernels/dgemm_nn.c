// DGEMM: C = alpha * A * B + beta * C in double precision, C M x N, A M x K, B K x N.
#define M 2048
#define N 1024
#define K 1536

void dgemm_nn(double alpha, double beta, double C[M][N], const double A[M][K], const double B[K][N])
{
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      C[i][j] *= beta;
      for (int k = 0; k < K; k++)
        C[i][j] += alpha * A[i][k] * B[k][j];
    }
}
