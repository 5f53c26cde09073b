// gpucc-args: --recipe recipes/conv2d.lua -D N=300 -D K=3 -P TI=32 -P TJ=8
// 2-D convolution of an image with a K x K mask (seed 004, Fig. 3.2 and section 6.4).
#define N 512
#define K 5

void conv2d(const float in[N + K - 1][N + K - 1], const float mask[K][K], float out[N][N])
{
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      float sum = 0.0f;
      for (int p = 0; p < K; p++)
        for (int q = 0; q < K; q++)
          sum += in[i + p][j + q] * mask[p][q];
      out[i][j] = sum;
    }
}
