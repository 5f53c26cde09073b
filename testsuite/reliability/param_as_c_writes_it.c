// gpucc-run: FILE --recipe testsuite/reliability/param_as_c_writes_it.lua -P TX=0x20 -P TY=010 --verify
// gpucc-exit: 0
// gpucc-says: verified: every array the code writes is the same
// gpucc-says: TX = 32
// gpucc-says: TY = 8
// `-P` values written as C writes numbers: 0x20 is 32, 010 is 8.
#define N 40
void add(float A[N][N], const float B[N][N]) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      A[i][j] = A[i][j] + B[i][j];
}
