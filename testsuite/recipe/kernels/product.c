// The product of a vector's elements: an update, but not one gpucc splits across threads.
#define N 256

void product(const float x[N], float p[1])
{
  for (int i = 0; i < N; i++)
    p[0] *= x[i];
}
