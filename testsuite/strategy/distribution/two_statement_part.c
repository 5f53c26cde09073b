// The first part of `i`'s body is a loop of two statements: `distribute` would give each
// of them a nest of its own (and split their `j` loop), so gpucc leaves `i` as it is.
#define N 256

void two_statement_part(float A[N][N], float B[N][N], float C[N][N], const float X[N][N])
{
  for (int i = 0; i < N; i++) {
    for (int j = 0; j < N; j++) {
      A[i][j] = 2.0f * X[i][j];
      B[i][j] = X[i][j] + 1.0f;
    }
    for (int k = 0; k < N; k++)
      for (int j = 0; j < N; j++)
        C[i][j] += X[i][k] * X[k][j];
  }
}
