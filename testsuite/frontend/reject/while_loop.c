void f(int n, float A[n])
{
  int i = 0;
  while (i < n) {
    A[i] = 0;
    i++;
  }
}
