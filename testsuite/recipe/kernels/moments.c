// The sum and the sum of squares of a vector, in one loop: two reductions in one kernel.
#define N 1000

void moments(const double x[N], double sum[1], double squares[1])
{
  for (int i = 0; i < N; i++) {
    sum[0] += x[i];
    squares[0] += x[i] * x[i];
  }
}
