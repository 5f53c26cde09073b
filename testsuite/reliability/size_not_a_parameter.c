// gpucc-run: FILE --size q=5
// gpucc-exit: 2
// gpucc-says: --size names q, which is not a size parameter of the code
// `--size` naming what is not a size known only at run time (here `q`, which the code
// does not declare) is a usage error, said before a .cu is written (it was written, then
// reported as gpucc's own wrong output, exit 3). An `int` parameter the loops never read
// (`m`) is a size all the same: `--size m=5` is accepted (unused_size_parameter.c).
#define N 10
void kernel(int m, float A[N]) {
  for (int i = 0; i < N; i++)
    A[i] = 1.0f;
}
