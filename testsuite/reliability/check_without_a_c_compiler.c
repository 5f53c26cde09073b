// gpucc-run: FILE
// gpucc-env: CC=/no/such/cc
// gpucc-exit: 4
// gpucc-says: the check could not run
// gpucc-says: is kept; it was not checked
// A check that cannot run (here: no C compiler) is not a bug in gpucc: exit 4, the .cu
// kept.
#define N 100
void copy(float A[N], const float B[N]) {
  for (int i = 0; i < N; i++)
    A[i] = B[i];
}
