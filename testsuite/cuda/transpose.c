// gpucc-args: --recipe recipes/transpose.lua
// Transposition of a rectangular matrix, through shared memory.
#define ROWS 300
#define COLS 200

void transpose(const float A[ROWS][COLS], float B[COLS][ROWS])
{
  for (int i = 0; i < ROWS; i++)
    for (int j = 0; j < COLS; j++)
      B[j][i] = A[i][j];
}
