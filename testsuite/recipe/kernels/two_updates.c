// Two statements in one loop: b[i] feeds the next iteration's a[i + 1], and c[i] is
// computed from the row's a[i].
#define N 256

void two_updates(float a[N + 1], float b[N], float c[N], const float x[N])
{
  for (int i = 0; i < N; i++) {
    b[i] = a[i] * x[i];
    a[i + 1] = b[i] + 1.0f;
    c[i] = 2.0f * a[i];
  }
}
