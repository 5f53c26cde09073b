void f(float A[10])
{
  for (int i = 0; i < 10; i++) {
    if (i > 5) goto done;
    A[i] = 0;
  }
done:
  ;
}
