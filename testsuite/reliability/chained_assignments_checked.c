// gpucc-run: FILE
// gpucc-exit: 0
// gpucc-says: verified: every array the code writes is the same
// Chained assignments (PolyBench's deriche: `a1 = a5 = k;`, issue 20) compile, and the
// CUDA computes what the C computes, conversions included: `C[i] += c1 = 0.75f * i`
// adds the int that c1 holds, not the float.
#define N 100

void chained(float k, float A[N], float B[N], int C[N])
{
  float a1, a5;
  int c1;
  a1 = a5 = k;
  for (int i = 0; i < N; i++) {
    A[i] = B[i] = a1 * i + a5;
    C[i] += c1 = 0.75f * i;
  }
}
