void f(float A[10])
{
  for (float x = 0; x < 10; x++)
    A[0] += x;
}
