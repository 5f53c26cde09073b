// gpucc-run: FILE --size n=40
// gpucc-exit: 0
// gpucc-says: verified: every array the code writes is the same
// Found by the random-nest generator (seed 20261125, programs 200 and 582): `i` counts
// down on the host and the number of blocks of each launch depends on it; the grid was
// written with the kernel's name for it (`i_rev`), which the host does not have (the
// generated C++ did not compile, exit 3).
void kernel(int n, float alpha, float B[n + 2][n + 2][n + 2], const float C[2 * n + 2][n + 2])
{
  for (int i = n - 1; i >= 0; i--) {
    for (int j = i; j < n - 1; j++) {
      B[j + 1][j][0] = alpha - C[2 * i][0];
      for (int k = 1; k <= j; k++) {
        B[i][j + 2][i] = 0.25 * B[j][i][k];
      }
    }
  }
}
