// if / else with affine conditions, && and ||, and a ternary value.
#define N 64

void conditions(float A[N][N], const float B[N][N])
{
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      if (i == j)
        A[i][j] = 1.0f;
      else if (i < j && (j - i) % 2 == 0)
        A[i][j] = B[i][j];
      else
        A[i][j] = B[i][j] > 0 ? B[i][j] : -B[i][j];
    }
}
