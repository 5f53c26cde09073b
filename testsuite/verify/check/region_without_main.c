// A `#pragma scop` region in a file without `main`: the check calls the function around
// it, with a global the region reads and a parameter it does not use.
#define N 64
float G[N];
void shift(int unused, float A[N], const float B[N]) {
#pragma scop
  for (int i = 0; i < N; i++)
    A[i] = B[i] + G[i] * 2;
#pragma endscop
}
