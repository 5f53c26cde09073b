// A total in a scalar declared before the scop region, which adds to its value, and
// printed after it. The squares are small integers, so every order of the sum is exact.
#include <stdio.h>
#define N 1000

int main(void)
{
  float a[N];
  float total = 1.5f;
  for (int k = 0; k < N; k++)
    a[k] = (float)(k % 7) - 2.0f;
#pragma scop
  for (int i = 0; i < N; i++)
    total = total + a[i] * a[i];
#pragma endscop
  printf("total %.1f\n", total);
  return 0;
}
