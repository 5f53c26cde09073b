// gpucc-run: FILE --verify-size 0
// gpucc-exit: 2
// gpucc-says: expected `reduced`, `full`, or the largest size to check at
#define N 100
void copy(float A[N], const float B[N]) {
  for (int i = 0; i < N; i++)
    A[i] = B[i];
}
