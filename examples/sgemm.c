/* A single-precision matrix product, C += A B, as a whole program. `gpucc
 * examples/sgemm.c -o sgemm.cu` compiles the marked region of sgemm to CUDA (gpucc
 * chooses the strategy; `--recipe recipes/sgemm.lua` imposes CUDA-CHiLL's) and copies
 * the rest, main included, through as written. */
#include <stdio.h>

#define N 1024

static float A[N][N], B[N][N], C[N][N];

void sgemm(const float A[N][N], const float B[N][N], float C[N][N])
{
#pragma scop
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      for (int k = 0; k < N; k++)
        C[i][j] += A[i][k] * B[k][j];
#pragma endscop
}

int main(void)
{
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      A[i][j] = (float)((i * 7 + j * 3) % 17) / 17.0f;
      B[i][j] = (float)((i * 5 + j * 11) % 13) / 13.0f;
      C[i][j] = 0.0f;
    }
  sgemm(A, B, C);
  double checksum = 0.0;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      checksum += C[i][j];
  printf("checksum %.1f\n", checksum);
  return 0;
}
