// Dot product of two vectors, accumulated in the result array's only element.
#define N 16777216

void dot(const float x[N], const float y[N], float result[1])
{
  result[0] = 0.0f;
  for (int i = 0; i < N; i++)
    result[0] += x[i] * y[i];
}
