// Chained assignments, as PolyBench's deriche writes them (`a1 = a5 = k;`): each becomes
// plain assignments, the innermost first, and the outer one reads what the inner wrote
// (`c1 = c2 = 1` is `c2 = 1; c1 = c2;`), in the conversions C applies.
#define N 16

void chained(float k, float A[N], float B[N], int C[N])
{
  float a1, a5;
  int c1, c2;
  a1 = a5 = k;
  c1 = c2 = 1;
  for (int i = 0; i < N; i++) {
    A[i] = B[i] = a1 * i + a5;
    C[i] += c1 = c2 * i;
  }
}
