// Scale a matrix in place: A = alpha * A (M x N, double).
#define M 4096
#define N 4096

void scale(double alpha, double A[M][N])
{
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++)
      A[i][j] *= alpha;
}
