// gpucc-run: FILE
// gpucc-exit: 0
// gpucc-says: verified: every array the code writes is the same
// Found by the random-nest generator: `A[i] += B[i] * 0.1` with `float A` and `double B`
// adds in double, then rounds (C's rule, and CUDA's). The check's CPU runtime rounded the
// double to float first, then added: one float rounding off, seen in `C`, a double copy,
// and the check called gpucc's correct CUDA wrong (exit 3).
#define N 256
void accumulate(float A[N], const double B[N], double C[N])
{
  for (int i = 0; i < N; i++) {
    A[i] += B[i] * 0.1;
    C[i] = A[i];
  }
}
