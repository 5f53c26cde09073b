// A sum over `j <= i` that reads `x[j]`: at `j = i` it reads the element it updates, so
// the sum cannot be split across threads.
void trisolve_self(int n, double L[n][n], double x[n])
{
  for (int i = 0; i < n; i++)
    for (int j = 0; j <= i; j++)
      x[i] -= L[i][j] * x[j];
}
