// From the nest fuzzer (seed 7950823667145900033, program 19): `t0` is declared inside
// the `l` loop, so the dependence analysis gives each iteration its own copy and isl's
// scheduler may run every definition before every use. The code keeps one copy, so
// `reschedule` must keep each use right after its definition.
#define N0 15
#define N1 12

void private_reuse(float alpha, float A[N0 + 2][N0 + 2], const float B[N1 + 2])
{
  int i, j, k, l;
  for (i = 2; i < N0; i += 3) {
    for (j = 2; j <= N0 - 1; j++) {
      for (k = N0 - 1; k >= 1; k--) {
        for (l = k + 1; l <= N0 - 1; l++) {
          float t0 = (float)l / 16;
          A[k + 2][l] = t0;
        }
        A[k + 1][i + 2] = 0.25 * A[N0 - 1 - j][N0 - 1 - j] + alpha;
      }
    }
    A[1][i + 2] = (float)i / 16 - B[1] + B[1];
  }
}
