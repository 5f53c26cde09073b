// The compiled function is `static`: the check must call it from the file's own unit.
#define N 64
static void shift(float A[N], const float B[N]) {
  for (int i = 0; i < N; i++)
    A[i] = B[i] + 1;
}
