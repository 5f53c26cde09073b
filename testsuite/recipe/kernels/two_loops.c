// Two loops over i: the second reads b[i + 1], which the first writes one iteration later.
// Fused as they are, c[i] would read b[i + 1] before it is written; with the second loop
// shifted by one iteration, the fused loop computes b[i] and then the c that needs it.
#define N 256

void two_loops(const float a[N + 1], float b[N + 1], float c[N])
{
  for (int i = 0; i <= N; i++)
    b[i] = 2.0f * a[i];
  for (int i = 0; i < N; i++)
    c[i] = b[i] + b[i + 1];
}
