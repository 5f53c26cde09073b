// A 4-D tensor contraction (two indices summed, as in coupled-cluster codes):
// C[a][b][c][d] = sum over e, f of A[a][e][b][f] * B[e][c][f][d].
#define NA 48
#define NB 48
#define NC 48
#define ND 48
#define NE 24
#define NF 24

void tensor_contraction4d(const float A[NA][NE][NB][NF], const float B[NE][NC][NF][ND],
                          float C[NA][NB][NC][ND])
{
  for (int a = 0; a < NA; a++)
    for (int b = 0; b < NB; b++)
      for (int c = 0; c < NC; c++)
        for (int d = 0; d < ND; d++) {
          C[a][b][c][d] = 0.0f;
          for (int e = 0; e < NE; e++)
            for (int f = 0; f < NF; f++)
              C[a][b][c][d] += A[a][e][b][f] * B[e][c][f][d];
        }
}
