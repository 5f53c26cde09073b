// Each row i: keep its diagonal element, then scale the row by w (column weights), out of
// place. A statement and a loop in the body of `i`: distributed at `i`, the row's loop
// maps to threads along x too.
#define N 2048

void diagonal_then_scale(float d[N], float B[N][N], const float A[N][N], const float w[N])
{
  for (int i = 0; i < N; i++) {
    d[i] = A[i][i];
    for (int j = 0; j < N; j++)
      B[i][j] = A[i][j] * w[j];
  }
}
