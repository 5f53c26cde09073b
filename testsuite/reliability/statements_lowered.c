// gpucc-run: deps FILE --limit statements=2
// gpucc-exit: 1
// gpucc-says: this code (3 statements) reached the limit `statements` (2 statements in the compiled code)
// gpucc-says: --limit statements=N
// The limit on statements, lowered: the third statement is where the code reaches it.
void f(float A[4])
{
  for (int i = 0; i < 4; i++) {
    A[i] = 1;
    A[i] = A[i] + 1;
    A[i] = A[i] * 2;
  }
}
