// The file's own min and max macros, which the check must leave as they are.
#define min(a, b) ((a) < (b) ? (a) : (b))
#define max(a, b) ((a) > (b) ? (a) : (b))
void band(int n, float A[100][100]) {
  for (int i = 0; i < 100; i++)
    for (int j = max(i - 5, 0); j < min(i + 10, 100); j++)
      A[i][j] = A[i][j] + 1;
}
