// 3mm (PolyBench): three matrix products, E = A * B, F = C * D, G = E * F, at five
// sizes. The three nests are one computation at other sizes (`Nest::shape`): Phase IV
// searches the second and third products' tile sizes from the first's
// (`src/tune/values.rs`, `near_twin`).
#define NI 256
#define NJ 288
#define NK 320
#define NL 352
#define NM 384

void mm3(float E[NI][NJ], const float A[NI][NK], const float B[NK][NJ],
         float F[NJ][NL], const float C[NJ][NM], const float D[NM][NL],
         float G[NI][NL])
{
  for (int i = 0; i < NI; i++)
    for (int j = 0; j < NJ; j++) {
      E[i][j] = 0.0f;
      for (int k = 0; k < NK; k++)
        E[i][j] += A[i][k] * B[k][j];
    }
  for (int i = 0; i < NJ; i++)
    for (int j = 0; j < NL; j++) {
      F[i][j] = 0.0f;
      for (int k = 0; k < NM; k++)
        F[i][j] += C[i][k] * D[k][j];
    }
  for (int i = 0; i < NI; i++)
    for (int j = 0; j < NL; j++) {
      G[i][j] = 0.0f;
      for (int k = 0; k < NJ; k++)
        G[i][j] += E[i][k] * F[k][j];
    }
}
