// 2-D five-point Jacobi with its sizes as parameters (steps time steps on an n x m grid),
// for gpucc library: a stencil whose loops of launches stay on the host.
void jacobi2d(int steps, int n, int m, float A[n][m], float B[n][m])
{
  for (int t = 0; t < steps; t++) {
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < m - 1; j++)
        B[i][j] = 0.2f * (A[i][j] + A[i - 1][j] + A[i + 1][j] + A[i][j - 1] + A[i][j + 1]);
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < m - 1; j++)
        A[i][j] = B[i][j];
  }
}
