// A region in a file without `main` whose function takes a pointer the region does not
// use: the check cannot make one, and says how to check the code instead.
#define N 64
void shift(float *scratch, float A[N], const float B[N]) {
#pragma scop
  for (int i = 0; i < N; i++)
    A[i] = B[i] + 1;
#pragma endscop
  scratch[0] = A[0];
}
