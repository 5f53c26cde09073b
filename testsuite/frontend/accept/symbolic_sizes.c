// Sizes that stay symbolic: array dimensions named by earlier int parameters, and a
// triangular nest.
void symbolic_sizes(int n, int m, float A[n][m], float L[n][n], float s[n])
{
  for (int i = 0; i < n; i++) {
    s[i] = 0;
    for (int j = 0; j < m; j++)
      s[i] += A[i][j];
    for (int j = 0; j <= i; j++)
      L[i][j] = s[i] - s[j];
  }
}
