// gpucc-run: FILE
// gpucc-exit: 0
// gpucc-says: verified: every array the code writes is the same
// An `int` parameter read only by a statement's value (not a bound or a subscript) is
// passed to the kernel with its type.
void scale(int n, int s, long t, float A[100]) {
  for (int i = 0; i < 100; i++)
    A[i] = A[i] * s + t;
}
