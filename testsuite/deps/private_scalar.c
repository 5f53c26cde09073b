// Scalars declared once and reused by every iteration (PolyBench's style). `t` is written
// before it is read in each (i, j) iteration and dead after the code: private to `i` and
// `j`, which then run in parallel. `s` carries its value from one `i` to the next (a
// flow dependence `i` carries) and `last` is read after the loops: both stay shared, and
// `i` of the second nest stays sequential.
void private_scalar(int n, float A[n][n], float B[n][n], float x[n], float out[2])
{
  float t, s, last;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      t = A[i][j] * 2.0f;
      B[i][j] = t * t;
    }
  s = 0.0f;
  for (int i = 0; i < n; i++) {
    s = s * 0.5f + x[i];
    last = s;
    x[i] = last;
  }
  out[0] = s;
  out[1] = last;
}
