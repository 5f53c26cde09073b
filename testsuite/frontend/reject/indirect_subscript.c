void gather(int n, float out[n], const float in[n], const int idx[n])
{
  for (int i = 0; i < n; i++)
    out[i] = in[idx[i]];
}
