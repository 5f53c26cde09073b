#define N 100
void stencil(float A[N], const float B[N])
{
  for (int i = 0; i < N; i++)
    A[i] = B[i - 1] + B[i] + B[i + 1];
}
