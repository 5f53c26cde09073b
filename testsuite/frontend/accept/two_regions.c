// Two #pragma scop regions in different functions, with globals and locals from outside.
#define N 16
float G[N];

void first(float A[N])
{
#pragma scop
  for (int i = 0; i < N; i++)
    A[i] = G[i] * 2;
#pragma endscop
}

void second(void)
{
  float B[N][N];
  int k = 3;
#pragma scop
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      B[i][j] = G[(i + j) % N] * k;
#pragma endscop
}
