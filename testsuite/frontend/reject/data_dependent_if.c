void relu(int n, float A[n])
{
  for (int i = 0; i < n; i++)
    if (A[i] < 0)
      A[i] = 0;
}
