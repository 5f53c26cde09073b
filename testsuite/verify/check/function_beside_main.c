// gpucc-args: --function shift
// The compiled function beside globals, a static helper defined after its use, and main:
// the original and the generated program each define them; they must not collide.
#include <stdio.h>
#define N 64
float A[N], B[N];
static void init(void);
static void shift(float A[N], const float B[N]) {
  for (int i = 0; i < N; i++)
    A[i] = B[i] + 1;
}
int main(void) {
  init();
  shift(A, B);
  printf("%f\n", A[3]);
  return 0;
}
static void init(void) { for (int i = 0; i < N; i++) B[i] = i; }
