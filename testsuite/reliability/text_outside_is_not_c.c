// gpucc-run: FILE --no-verify
// gpucc-exit: 1
// gpucc-says: the original C does not compile
// gpucc-says: text_outside_is_not_c.c:10:1: error: unknown type name
// gpucc-says: the file must be C that compiles
// Text outside the compiled region that is not C was copied into the .cu unchecked, and
// gpucc exited 0.
#define N 64
float A[N];
this is not C at all;
int main(void) {
#pragma scop
  for (int i = 0; i < N; i++)
    A[i] = A[i] + 1;
#pragma endscop
  return A[3] > 0;
}
