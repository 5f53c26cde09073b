void f(float A[10])
{
  for (int i = 0; i < 10; i++) {
    if (i % 2)
      continue;
    A[i] = 0;
  }
}
