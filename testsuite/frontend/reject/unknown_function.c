// gpucc-args: --function f
float square(float x) { return x * x; }

void f(int n, float A[n])
{
  for (int i = 0; i < n; i++)
    A[i] = square(A[i]);
}
