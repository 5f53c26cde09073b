// 2mm (PolyBench): two matrix products in sequence, D = alpha * A * B * C + beta * D,
// through a temporary: tmp = alpha * A * B (NI x NJ), then D = beta * D + tmp * C (NI x NL).
#define NI 1024
#define NJ 1152
#define NK 1280
#define NL 896

void mm2(float alpha, float beta, float tmp[NI][NJ], const float A[NI][NK],
         const float B[NK][NJ], const float C[NJ][NL], float D[NI][NL])
{
  for (int i = 0; i < NI; i++)
    for (int j = 0; j < NJ; j++) {
      tmp[i][j] = 0.0f;
      for (int k = 0; k < NK; k++)
        tmp[i][j] += alpha * A[i][k] * B[k][j];
    }
  for (int i = 0; i < NI; i++)
    for (int l = 0; l < NL; l++) {
      D[i][l] *= beta;
      for (int j = 0; j < NJ; j++)
        D[i][l] += tmp[i][j] * C[j][l];
    }
}
