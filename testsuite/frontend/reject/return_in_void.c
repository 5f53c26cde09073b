void f(int n, float A[n])
{
  if (n == 0)
    return;
  for (int i = 0; i < n; i++)
    A[i] = 1;
}
