// Sum of all elements of an M x N matrix, into one array element (a reduction over both
// loops).
#define M 4096
#define N 4096

void matrix_sum(const double A[M][N], double total[1])
{
  total[0] = 0.0;
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++)
      total[0] += A[i][j];
}
