// The largest element of x, the smallest of y and the sum of the flags, each folded into
// the value its one-element array holds.
#include <math.h>
#define N 1000

void extremes(const float x[N], const double y[N], const int flags[N], float top[1],
              double low[1], int count[1])
{
  for (int i = 0; i < N; i++)
    top[0] = fmaxf(top[0], x[i]);
  for (int i = 0; i < N; i++)
    low[0] = fmin(low[0], y[i]);
  for (int i = 0; i < N; i++)
    count[0] += flags[i];
}
