// SAXPY: y = a * x + y.
#define N 16777216

void saxpy(float a, const float x[N], float y[N])
{
  for (int i = 0; i < N; i++)
    y[i] = a * x[i] + y[i];
}
