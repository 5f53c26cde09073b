// The sum of all the elements of a matrix, added to total[0]. The sizes are not multiples
// of the tiles that cover them.
#define M 100
#define N 200

void sum2d(const float A[M][N], float total[1])
{
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++)
      total[0] += A[i][j];
}
