// gpucc-run: FILE
// gpucc-exit: 0
// gpucc-says: verified: every array the code writes is the same
// Found by the random-nest generator (seed 20261125, program 948): isl 0.27's dataflow
// fails on this nest ("affine expression involves some of the domain dimensions": a loop
// with step 3 inside two others, an update after an inner loop that writes the same
// element), reported as a bug in gpucc (exit 3). The flow dependences are then taken
// memory-based, a superset: every transformation they allow is legal.
#define N1 14
void kernel(float alpha, float A[9])
{
  for (int i = 0; i <= N1 - 1; i++) {
    for (int j = 0; j <= N1 - 1; j++) {
      for (int k = 2; k < N1; k += 3) {
        for (int l = 2; l < k; l++) {
          A[1] = 1.5f;
        }
        A[1] += alpha;
      }
    }
  }
}
