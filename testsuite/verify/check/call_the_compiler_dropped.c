// GCC 12.2 at -O1 dropped the call of this function from the check's driver (its
// induction-variable optimisation rewrites the pointer of the third read, and the store
// is then lost track of): the original seemed to leave C unchanged, and correct CUDA was
// reported as a bug in gpucc (found by the random nests, seed 20261127, programs 2263 and
// 2507). Every access is in bounds; -O0 and -fno-ivopts compute it right.
#define N 5
void kernel(int C[N + 2][N + 2])
{
  for (int i = 0; i < N; i++)
    C[N - 1 - i][i] = C[0][i] + C[i][0] + C[i + 2][i];
}
