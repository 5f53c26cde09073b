// Loop bounds with <=, min and max (as calls and as ?:), steps, a loop counting down,
// and quasi-affine subscripts (division and modulo by constants).
#define N 100
#define MIN(a, b) ((a) < (b) ? (a) : (b))

void bounds_forms(int n, float A[N][N], float v[N])
{
  for (int i = 0; i <= MIN(n, N - 1); i++)
    for (int j = max(0, i - 3); j < min(N, i + 4); j += 2)
      A[i][j] = v[j / 2] + v[(i + j) % 7];
  for (int k = N - 1; k >= 0; k--)
    v[k] = v[k] * 0.5f;
}
