float sum(int n, const float A[n])
{
  float s = 0;
  for (int i = 0; i < n; i++)
    s += A[i];
  return s;
}
