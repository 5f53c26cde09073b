// Scalar parameters, a local array with a constant initializer, locals declared at the
// top and inside loops, casts, math calls, compound assignments and ++.
#include <math.h>
#define N 32

void scalars_and_locals(int n, double alpha, double A[N], double out[N], int count[1])
{
  const double w[3] = {0.25, 0.5, 0.25};
  double scale = alpha * 2.0;
  int i;
  for (i = 1; i < N - 1; i++) {
    double t = w[0] * A[i - 1] + w[1] * A[i] + w[2] * A[i + 1];
    out[i] = sqrt(fabs(t)) * scale + (double)n;
    out[i] *= 0.5;
    count[0]++;
  }
}
