void f(float A[10])
{
  int i = 0;
  do { A[i] = 0; i++; } while (i < 10);
}
