// SYMM as PolyBench writes it: C = alpha A B + beta C with A symmetric (lower triangle
// stored), the running sum in a scalar `temp2` declared once for the whole function.
// Only after `temp2` is made private to the (i, j) iterations can `j` run in parallel.
#define M 512
#define N 768

void symm_temp(float alpha, float beta, float C[M][N], const float A[M][M], const float B[M][N])
{
  float temp2;
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      temp2 = 0;
      for (int k = 0; k < i; k++) {
        C[k][j] += alpha * B[i][j] * A[i][k];
        temp2 += B[k][j] * A[i][k];
      }
      C[i][j] = beta * C[i][j] + alpha * B[i][j] * A[i][i] + alpha * temp2;
    }
}
