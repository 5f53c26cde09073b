// An array whose first element overflows to infinity: the other elements are still
// compared at the tolerance (an infinity once made every other error relative to it).
#define N 64
void scale(float A[N])
{
  for (int i = 1; i < N; i++)
    A[i] = A[i] * 3;
  A[0] = 1e30f * 1e30f;
}
