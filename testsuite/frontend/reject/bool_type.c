// `_Bool` is not in the subset: refused with a hint.
#define N 16

void flags(_Bool set[N], int count[N])
{
  for (int i = 0; i < N; i++)
    count[i] = set[i];
}
