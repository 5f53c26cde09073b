// One scalar reused for unrelated values, as PolyBench's ludcmp reuses `w`: the first nest
// sums a row into it, the second a column. Each nest's use is a live range of its own
// (no value flows from one to the other), so each becomes a private copy: `i` of the first
// nest and `j` of the second run in parallel, and the `k` loops are reductions.
void private_scalar_ranges(int n, const float A[n][n], float rows[n], float cols[n])
{
  float w;
  for (int i = 0; i < n; i++) {
    w = 0.0f;
    for (int k = 0; k < n; k++)
      w += A[i][k];
    rows[i] = w;
  }
  for (int j = 0; j < n; j++) {
    w = 0.0f;
    for (int k = 0; k < n; k++)
      w += A[k][j];
    cols[j] = w;
  }
}
