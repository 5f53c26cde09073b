#define AT(a, i, j) a[i][j]
void f(float A[4][4])
{
  for (int i = 0; i < 4; i++)
    AT(A, i) = 0;
}
