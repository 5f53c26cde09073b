// Largest absolute value of a vector (the infinity norm), a max reduction with fmaxf.
#include <math.h>

#define N 16777216

void max_abs(const float x[N], float result[1])
{
  result[0] = 0.0f;
  for (int i = 0; i < N; i++)
    result[0] = fmaxf(result[0], fabsf(x[i]));
}
