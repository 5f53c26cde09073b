// 1-D three-point smoothing over TSTEPS time steps: B = average of A's neighbours, then A = B
// (the two arrays are swapped by a copy; the end points stay fixed).
#define TSTEPS 100
#define N 65536

void stencil1d_3pt(float A[N], float B[N])
{
  for (int t = 0; t < TSTEPS; t++) {
    for (int i = 1; i < N - 1; i++)
      B[i] = 0.33333f * (A[i - 1] + A[i] + A[i + 1]);
    for (int i = 1; i < N - 1; i++)
      A[i] = B[i];
  }
}
