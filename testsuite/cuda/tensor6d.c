// gpucc-args: --recipe recipes/tensor_contraction.lua
// A 6-D tensor contraction: C[a][b][c][d] += A[a][e][c][f] * B[e][b][f][d].
#define NA 16
#define NB 16
#define NC 16
#define ND 32
#define NE 8
#define NF 8

void contract(const double A[NA][NE][NC][NF], const double B[NE][NB][NF][ND], double C[NA][NB][NC][ND])
{
  for (int a = 0; a < NA; a++)
    for (int b = 0; b < NB; b++)
      for (int c = 0; c < NC; c++)
        for (int d = 0; d < ND; d++)
          for (int e = 0; e < NE; e++)
            for (int f = 0; f < NF; f++)
              C[a][b][c][d] += A[a][e][c][f] * B[e][b][f][d];
}
