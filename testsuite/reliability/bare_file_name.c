// gpucc-run: bare_file_name.c
// gpucc-cwd: testsuite/reliability
// gpucc-exit: 0
// gpucc-says: verified: every array the code writes is the same
// `cd DIR && gpucc file.c`: the file has no directory part (its check once passed the C
// compiler `-I` with an empty path).
#define N 100
void axpy(float a, const float x[N], float y[N]) {
  for (int i = 0; i < N; i++)
    y[i] = a * x[i] + y[i];
}
