// gpucc-args: --recipe recipes/transpose.lua
// benchmarks/vendor.py: B = A^T for A of ROWS x COLS floats (as testsuite/cuda/transpose.c).
#define ROWS 8192
#define COLS 8192

void transpose(const float A[ROWS][COLS], float B[COLS][ROWS])
{
  for (int i = 0; i < ROWS; i++)
    for (int j = 0; j < COLS; j++)
      B[j][i] = A[i][j];
}
