// gpucc-run: emulate FILE --size m=4096
// gpucc-exit: 0
// gpucc-says: sizes known only at run time: n = 1024 (assumed), m = 4096
// gpucc-says: give the real one with --size n=VALUE
// `gpucc emulate` says which value it assumed for a size it cannot see.
void scale(int n, int m, float A[n][m]) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      A[i][j] = 2 * A[i][j];
}
