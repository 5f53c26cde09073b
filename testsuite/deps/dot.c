// Dot product through a scalar accumulator, and its square root (the 2-norm of x when y = x).
#include <math.h>

void dot(int n, const float x[n], const float y[n], float result[2])
{
  float sum = 0.0f;
  for (int i = 0; i < n; i++)
    sum += x[i] * y[i];
  result[0] = sum;
  result[1] = sqrtf(sum);
}
