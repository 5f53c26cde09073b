// Row i reads row i - 1 at j and j + 1, written just before: flow dependences of distance
// (1, 0) and (1, -1). j is parallel; i is not, and (1, -1) forbids interchanging i and j.
#define N 64

void seidel(float A[N][N])
{
  for (int i = 1; i < N; i++)
    for (int j = 0; j < N - 1; j++)
      A[i][j] = 0.5f * (A[i - 1][j] + A[i - 1][j + 1]);
}
