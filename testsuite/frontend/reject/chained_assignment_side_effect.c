// A chain whose inner target changes a variable itself (`B[j++]`) is not a plain
// statement in disguise: refused, as any assignment inside an expression.
#define N 16

void chained(float A[N], float B[N])
{
  int j = 0;
  for (int i = 0; i < N; i++)
    A[i] = B[j++] = 1.0f;
}
