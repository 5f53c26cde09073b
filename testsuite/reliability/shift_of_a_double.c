// gpucc-run: FILE
// gpucc-exit: 1
// gpucc-says: the original C does not compile (the C compiler's first error)
// gpucc-says: shift_of_a_double.c:10:17:
// `<<` on a double is not C; it was compiled into CUDA (exit 0). The file is refused
// with the C compiler's first error, at its line and column.
#define N 100
void f(double A[N], const double B[N]) {
  for (int i = 0; i < N; i++)
    A[i] = B[i] << 2;
}
