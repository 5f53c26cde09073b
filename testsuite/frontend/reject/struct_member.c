struct point { float x, y; };
void f(int n, float A[n], struct point p)
{
  for (int i = 0; i < n; i++)
    A[i] = p.x;
}
