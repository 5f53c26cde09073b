// gpucc-run: FILE --recipe testsuite/reliability/reversed_host_loop_with_a_stride.lua --verify
// gpucc-exit: 0
// gpucc-says: verified: every array the code writes is the same
// Found by the random-nest generator (seed 20261125, program 1111): `i` counts down and
// stays on the host, where the kernel receives it as `i_rev`; the values of the kernel's
// block loop were computed with the host level named `i`, the statements' own iterator,
// so `-i = i` made `j`'s stride `(j - i) % 3` a condition `j % 3 == 0` in every launch,
// and the kernel ran for a third of the `i`s.
#define N 9
void kernel(double A[N + 2][N + 2], double B[N + 2][N + 2])
{
  for (int i = N - 1; i >= 0; i--)
    for (int j = i; j < N - 1; j += 3)
      for (int l = 0; l < N; l++)
        B[j][l] += A[i][l];
}
