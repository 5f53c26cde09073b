// `char`, `signed char`, `unsigned char`, `short` and `unsigned short`, as PolyBench's
// nussinov uses them (`typedef char base;`): arrays and scalars of them, read and written.
#define N 16
typedef char base;

void small_types(base seq[N], unsigned char mask[N], short score[N][N], unsigned short total[N])
{
  signed char bias = 1;
  for (int i = 0; i < N; i++) {
    total[i] = mask[i] + bias;
    for (int j = i + 1; j < N; j++)
      score[i][j] = (seq[i] + seq[j]) == 3 ? score[i][j] + 1 : score[i][j];
  }
}
