// gpucc-run: FILE --recipe testsuite/reliability/grid_y_folded.lua --verify --verify-size full
// gpucc-exit: 0
// gpucc-says: verified: every array the code writes is the same
// 70,000 rows of one-row blocks: more than the 65,535 blocks CUDA allows along y, so the
// block rows are folded into blockIdx.x, and the full-size file is checked.
#define N 70000
void rows(float A[N][6]) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < 6; j++)
      A[i][j] = A[i][j] * 2 + i;
}
