// Euclidean distance matrix: D[i][j] = |X[i] - Y[j]| for NX points X and NY points Y in DIM
// dimensions (one row of X / Y per point).
#include <math.h>

#define NX 2048
#define NY 3072
#define DIM 16

void distance_matrix(const float X[NX][DIM], const float Y[NY][DIM], float D[NX][NY])
{
  for (int i = 0; i < NX; i++)
    for (int j = 0; j < NY; j++) {
      float s = 0.0f;
      for (int d = 0; d < DIM; d++)
        s += (X[i][d] - Y[j][d]) * (X[i][d] - Y[j][d]);
      D[i][j] = sqrtf(s);
    }
}
