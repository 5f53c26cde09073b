// `min` in a loop bound, which gpucc reads as the smaller of two values; the file does not
// define it (the check defines it for the C compiler).
void band(int n, float A[100][100]) {
  for (int i = 0; i < 100; i++)
    for (int j = max(i - 5, 0); j < min(i + 10, 100); j++)
      A[i][j] = A[i][j] + 1;
}
