// Euclidean norm of a vector: the square root of the sum of squares (summed in a local
// scalar), written to an array element.
#include <math.h>

#define N 16777216

void norm2(const double x[N], double result[1])
{
  double sum = 0.0;
  for (int i = 0; i < N; i++)
    sum += x[i] * x[i];
  result[0] = sqrt(sum);
}
