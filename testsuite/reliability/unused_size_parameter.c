// gpucc-run: FILE --size n=12 --size m=5
// gpucc-exit: 0
// gpucc-says: verified: every array the code writes is the same
// Found by the random-nest generator: `m` sizes only an array the loops leave alone, so
// the compiled code never reads it; `--size m=5` was refused as "not a size parameter of
// the code" (exit 2), though `m` is an `int` parameter the call passes.
void kernel(int n, int m, float A[n], const float B[m])
{
  for (int i = 0; i < n; i++)
    A[i] = 2 * A[i];
}
