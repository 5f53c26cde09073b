// gpucc-run: FILE --recipe testsuite/reliability/block_z_too_large.lua
// gpucc-exit: 1
// gpucc-says: 128 threads along z (`k`); CUDA allows at most 64
#define N 128
void cube(float A[2][2][N]) {
  for (int k = 0; k < N; k++)
    for (int j = 0; j < 2; j++)
      for (int i = 0; i < 2; i++)
        A[i][j][k] = 1;
}
