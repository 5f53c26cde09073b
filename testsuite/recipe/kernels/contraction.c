// C = A . B contracted over two indices (e, f): a statement that sets C and one that
// accumulates into it, inside a loop each thread runs.
#define NA 32
#define NC 64
#define NE 8
#define NF 8

void contraction(const float A[NA][NE][NF], const float B[NE][NF][NC], float C[NA][NC])
{
  for (int a = 0; a < NA; a++)
    for (int c = 0; c < NC; c++) {
      C[a][c] = 0.0f;
      for (int e = 0; e < NE; e++)
        for (int f = 0; f < NF; f++)
          C[a][c] += A[a][e][f] * B[e][f][c];
    }
}
