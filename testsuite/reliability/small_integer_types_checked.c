// gpucc-run: FILE
// gpucc-exit: 0
// gpucc-says: verified: every array the code writes is the same
// `char` and `short` data (PolyBench's nussinov, issue 20) compile and compute what the C
// computes, C's integer promotions included: `seq[i] + seq[j]` adds ints, and the
// assignment to an `unsigned char` element wraps as C wraps it (9 * 37 + 9 > 255).
#define N 100
typedef char base;

void small_types(const base seq[N], unsigned char mask[N], short score[N][N])
{
  for (int i = 0; i < N; i++) {
    mask[i] = mask[i] * 37 + seq[i];
    for (int j = 0; j < N; j++)
      score[i][j] = score[i][j] * 300 + (seq[i] + seq[j] == 3 ? 1 : 0);
  }
}
