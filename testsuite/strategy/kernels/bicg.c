// bicg (PolyBench, the BiCG sub-kernel): s = A^T r and q = A p, A is N x M, in three nests
// (initialise s; the column sums of s; the row sums of q).
#define N 4200
#define M 3800

void bicg(const float A[N][M], const float r[N], const float p[M], float s[M], float q[N])
{
  for (int j = 0; j < M; j++)
    s[j] = 0.0f;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < M; j++)
      s[j] += r[i] * A[i][j];
  for (int i = 0; i < N; i++) {
    q[i] = 0.0f;
    for (int j = 0; j < M; j++)
      q[i] += A[i][j] * p[j];
  }
}
