#include <stdio.h>
#define N 64
float A[N];
this is not C at all;
int main(void) {
#pragma scop
  for (int i = 0; i < N; i++)
    A[i] = A[i] + 1;
#pragma endscop
  printf("%f\n", A[3]);
  return 0;
}
