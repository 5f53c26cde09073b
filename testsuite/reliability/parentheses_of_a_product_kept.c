// gpucc-run: FILE
// gpucc-exit: 0
// gpucc-says: verified: every array the code writes is the same
// Found by the random-nest generator: `B[i] * (B[j] * alpha)` was written as
// `B[i] * B[j] * alpha`, which C computes as `(int * int) * float`, not `int * (int *
// float)`: another rounding (floating-point products are not associative).
#define N 256
void product(float alpha, const int B[N], double C[N])
{
  for (int i = 0; i < N; i++)
    C[i] = B[i] * (B[N - 1 - i] * alpha);
}
