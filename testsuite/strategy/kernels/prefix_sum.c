// Inclusive prefix sum, the sequential way: s[i] = s[i - 1] + x[i] (a recurrence carried by
// the only loop).
#define N 1048576

void prefix_sum(const float x[N], float s[N])
{
  s[0] = x[0];
  for (int i = 1; i < N; i++)
    s[i] = s[i - 1] + x[i];
}
