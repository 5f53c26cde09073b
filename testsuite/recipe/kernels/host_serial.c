// A loop that carries a dependence (`d[k]` from `d[k - 1]`) around a statement of its
// own and a parallel loop: `k` stays on the host, the statement runs in one thread at
// each of its iterations, the row in parallel.
#define N 256
void host_serial(float A[N][N], float d[N])
{
  for (int k = 1; k < N; k++) {
    d[k] = d[k - 1] + A[k][k];
    for (int j = 0; j < N; j++)
      A[k][j] = A[k][j] * d[k];
  }
}
