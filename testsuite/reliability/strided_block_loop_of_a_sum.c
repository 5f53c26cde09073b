// gpucc-run: FILE --size n=6 --size m=8
// gpucc-exit: 0
// gpucc-says: verified: every array the code writes is the same
// Found by the random-nest generator (seed 20261126, program 329): `j` counts by 2 and
// gets one block per value while the threads sum over `k`. The kernel took
// `j = blockIdx.x` over max(j) + 1 blocks with no guard for the odd ones (isl was told
// every block's `j` is a value of the loop), so odd rows were summed into too (exit 3).
// Now `j = 2 * blockIdx.x` over (n + 1) / 2 blocks.
void kernel(int n, int m, float B[n + 2][n + 2])
{
  for (int i = 0; i < m - 1; i++) {
    for (int j = 0; j < n; j += 2) {
      for (int k = 0; k < n; k++) {
        B[j + 1][0] += 1.5f;
      }
    }
  }
}
