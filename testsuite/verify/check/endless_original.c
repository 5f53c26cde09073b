// `j < 3000000000` is always true for an int j: the original never ends (and the
// generated code runs 3e11 iterations on the CPU).
void count(float A[100]) {
  for (int i = 0; i < 100; i++)
    for (int j = 0; j < 3000000000; j++)
      A[i] = A[i] + 1;
}
