// gpucc-run: FILE --recipe testsuite/reliability/grid_too_large.lua
// gpucc-exit: 1
// gpucc-says: needs 17179869184 blocks along x; CUDA allows at most 2147483647
// 2^17 x 2^17 one-thread blocks: more than CUDA can launch even folded into x.
#define N 131072
void big(float A[N][N]) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      A[i][j] = 1;
}
