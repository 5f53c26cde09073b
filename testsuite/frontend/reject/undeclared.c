void f(float A[10])
{
  for (int i = 0; i < 10; i++)
    A[i] = B[i];
}
