// gpucc-run: FILE -o FILE --no-verify
// gpucc-exit: 2
// gpucc-says: gpucc would overwrite it
// Seen while writing the option fuzzer: `-o` naming the input wrote the CUDA over the C
// file (and `gpucc x.cu`, whose default output is `x.cu`, over itself). Refused before
// anything is written.
#define N 10
void scale(float A[N]) {
  for (int i = 0; i < N; i++)
    A[i] = 2 * A[i];
}
