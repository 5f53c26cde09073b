// Two totals: one in a scalar declared before the scop region, which the region adds to,
// and one declared in the region; both are printed after it. The values are small
// integers, so every order of the sums is exact.
#include <stdio.h>
#define N 1000

int main(void)
{
  float a[N];
  float total = 1.5f;
  for (int k = 0; k < N; k++)
    a[k] = (float)(k % 7) - 2.0f;
#pragma scop
  float sum = 0.0f;
  for (int i = 0; i < N; i++)
    total = total + a[i] * a[i];
  for (int i = 0; i < N; i++)
    sum += a[i];
#pragma endscop
  printf("total %.1f sum %.1f\n", total, sum);
  return 0;
}
