// The original program crashes after the region (the check must say it is the original).
#include <signal.h>
#include <stdio.h>
#define N 64
float A[N];
int main(void) {
#pragma scop
  for (int i = 0; i < N; i++)
    A[i] = A[i] + 1;
#pragma endscop
  printf("%f\n", A[3]);
  raise(SIGSEGV);
  return 0;
}
