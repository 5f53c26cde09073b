void copy(int n, int m, float A[n], const float B[m])
{
  for (int i = 0; i < n; i++)
    A[i] = B[i];
}
