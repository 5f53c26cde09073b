// gpucc-run: FILE
// gpucc-exit: 0
// gpucc-says: verified: every array the code writes is the same
// Found by the random-nest generator: two kernels each keep `D` in registers; both copies
// were named `D_reg`, and the second kernel's copy-out was written with the first's
// temporary (`D[1][0] = D_reg[0]` where its `D_reg` is a scalar: the C++ did not compile).
#define N0 14
#define N1 3
void kernel(int D[N1 + 2][2 * N1 + 2])
{
  int i, j, k;
  for (i = 2; i < N1; i += 3) {
    for (j = N0 - 1; j >= 0; j--) {
      D[N1 - 1 - i][2 * i] += (D[i + 2][2 * i] / 2) % 1000;
    }
  }
  for (i = N0 - 1; i >= 0; i--) {
    for (k = 0; k < N1; k += 3) {
      D[k + 1][2 * k] = (3 + k) % 1000;
    }
  }
}
