void scale(int n, float *x, float a)
{
  for (int i = 0; i < n; i++)
    x[i] *= a;
}
