void f(int n, float A[n], const int len[1])
{
  for (int i = 0; i < len[0]; i++)
    A[i] = 0;
}
