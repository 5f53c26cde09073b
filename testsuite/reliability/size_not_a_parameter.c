// gpucc-run: FILE --size m=5
// gpucc-exit: 2
// gpucc-says: --size names m, which is not a size parameter of the code
// `--size` naming what is not a size known only at run time (here `m`, which the code
// never reads) is a usage error, said before a .cu is written (it was written, then
// reported as gpucc's own wrong output, exit 3).
#define N 10
void kernel(int m, float A[N]) {
  for (int i = 0; i < N; i++)
    A[i] = 1.0f;
}
