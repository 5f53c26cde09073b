// gpucc-run: FILE --no-verify --limit isl-operations=100
// gpucc-exit: 1
// gpucc-says: isl reached the limit `isl-operations` (100 operations
// gpucc-says: --limit isl-operations=N
// isl's operation budget, lowered: the first analysis that runs out says which limit it
// reached and how to raise it (exit 1). A context out of operations fails its next call
// with another error (its parser's "syntax error"), which was reported as a bug in gpucc
// (exit 3).
#define N 64
void matmul(const float A[N][N], const float B[N][N], float C[N][N]) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      for (int k = 0; k < N; k++)
        C[i][j] += A[i][k] * B[k][j];
}
