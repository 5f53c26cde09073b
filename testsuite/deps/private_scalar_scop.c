// A `#pragma scop` region and the scalars around it. `v` is written before it is read in
// each iteration and nothing after the region mentions it: private to `i`. `t` would be
// too, but the code after the region prints it, so the value the last iteration leaves
// in it is live and it stays shared (its loop sequential). In the third loop the first
// iteration reads the value `u` had before the region: `u` stays shared too.
#include <stdio.h>
#define N 1000

void scalars(float A[N], float B[N])
{
  float t = 1.0f, u = 0.0f, v = 0.0f;
#pragma scop
  for (int i = 0; i < N; i++) {
    v = A[i] * 2.0f;
    A[i] = v + 1.0f;
  }
  for (int i = 0; i < N; i++) {
    t = A[i] + 1.0f;
    B[i] = t;
  }
  for (int i = 0; i < N; i++) {
    if (i > 0)
      u = A[i];
    B[i] += u;
  }
#pragma endscop
  printf("%f\n", t);
}
