// 100 x 2e9 iterations: the original runs for minutes (and the generated code on the CPU
// as long), far past a check-seconds of 1.
void count(float A[100]) {
  for (int i = 0; i < 100; i++)
    for (int j = 0; j < 2000000000; j++)
      A[i] = A[i] + 1;
}
