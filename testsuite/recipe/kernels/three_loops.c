// Three loops over i, one after the other: the first and the last cannot be fused
// without moving the second.
#define N 128

void three_loops(const float a[N], float b[N], float c[N], float d[N])
{
  for (int i = 0; i < N; i++)
    b[i] = a[i] + 1.0f;
  for (int i = 0; i < N; i++)
    c[i] = b[i] * 2.0f;
  for (int i = 0; i < N; i++)
    d[i] = c[i] - b[i];
}
