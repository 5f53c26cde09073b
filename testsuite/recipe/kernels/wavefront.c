// A 2-D Gauss-Seidel sweep: each element reads its neighbour above and its neighbour to
// the left, both updated earlier in the sweep. Dependences of distance (1, 0) and (0, 1):
// neither loop is parallel as written; after skewing j by i, the anti-diagonals are.
#define N 64

void wavefront(float A[N][N])
{
  for (int i = 1; i < N; i++)
    for (int j = 1; j < N; j++)
      A[i][j] = 0.5f * (A[i - 1][j] + A[i][j - 1]);
}
