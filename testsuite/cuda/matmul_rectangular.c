// gpucc-args: --recipe recipes/sgemm.lua
// A rectangular matrix product with an initialisation: C = A B for A of 100 x 70 and
// B of 70 x 90 (the initialisation is distributed from the product by the recipe).
#define NI 100
#define NJ 90
#define NK 70

void matmul(const float A[NI][NK], const float B[NK][NJ], float C[NI][NJ])
{
  for (int i = 0; i < NI; i++)
    for (int j = 0; j < NJ; j++) {
      C[i][j] = 0.0f;
      for (int k = 0; k < NK; k++)
        C[i][j] += A[i][k] * B[k][j];
    }
}
