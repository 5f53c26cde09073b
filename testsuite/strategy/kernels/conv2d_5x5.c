// 2-D convolution (valid region) of an H x W image with a KS x KS filter passed as a small
// read-only array: out[i][j] = sum over p, q of w[p][q] * in[i + p][j + q].
#define H 2048
#define W 2048
#define KS 5

void conv2d_5x5(const float in[H + KS - 1][W + KS - 1], const float w[KS][KS], float out[H][W])
{
  for (int i = 0; i < H; i++)
    for (int j = 0; j < W; j++) {
      out[i][j] = 0.0f;
      for (int p = 0; p < KS; p++)
        for (int q = 0; q < KS; q++)
          out[i][j] += w[p][q] * in[i + p][j + q];
    }
}
