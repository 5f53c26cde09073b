// Whole program: gemver (PolyBench) in a #pragma scop region of a function that main calls
// on malloc'd arrays; main prints a checksum. Four nests: a rank-2 update of A, then
// x = x + beta * A^T y + z, then w = alpha * A x.
#include <stdio.h>
#include <stdlib.h>

#define N 4000

static void gemver(float alpha, float beta, float A[N][N], const float u1[N],
                   const float v1[N], const float u2[N], const float v2[N], float w[N],
                   float x[N], const float y[N], const float z[N])
{
#pragma scop
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      A[i][j] = A[i][j] + u1[i] * v1[j] + u2[i] * v2[j];
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      x[i] = x[i] + beta * A[j][i] * y[j];
  for (int i = 0; i < N; i++)
    x[i] = x[i] + z[i];
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      w[i] = w[i] + alpha * A[i][j] * x[j];
#pragma endscop
}

int main(void)
{
  float (*A)[N] = malloc(sizeof(float[N][N]));
  float *u1 = malloc(N * sizeof(float)), *v1 = malloc(N * sizeof(float));
  float *u2 = malloc(N * sizeof(float)), *v2 = malloc(N * sizeof(float));
  float *w = calloc(N, sizeof(float)), *x = calloc(N, sizeof(float));
  float *y = malloc(N * sizeof(float)), *z = malloc(N * sizeof(float));
  if (!A || !u1 || !v1 || !u2 || !v2 || !w || !x || !y || !z)
    return 1;
  for (int i = 0; i < N; i++) {
    u1[i] = (float)(i % 7) / 7.0f;
    v1[i] = (float)(i % 5) / 10.0f;
    u2[i] = (float)(i % 3) / 6.0f;
    v2[i] = (float)(i % 11) / 22.0f;
    y[i] = (float)(i % 13) / 13.0f;
    z[i] = (float)(i % 17) / 17.0f;
    for (int j = 0; j < N; j++)
      A[i][j] = (float)((i * j) % N) / N;
  }
  gemver(1.5f, 1.2f, A, u1, v1, u2, v2, w, x, y, z);
  double checksum = 0.0;
  for (int i = 0; i < N; i++)
    checksum += w[i] / N;
  printf("checksum %.4f\n", checksum);
  free(A); free(u1); free(v1); free(u2); free(v2); free(w); free(x); free(y); free(z);
  return 0;
}
