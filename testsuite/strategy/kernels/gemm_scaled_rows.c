// DGEMM C = alpha A B + beta C in the loop order PolyBench/C uses: each row of C is scaled
// by beta in a loop of its own, then the product runs in i-k-j order (M x N, K deep).
// Only `i` maps to threads as written; distributed at `i`, the product maps in 2-D.
#define M 1000
#define N 1100
#define K 1200

void gemm_scaled_rows(double alpha, double beta, double C[M][N], const double A[M][K],
                      const double B[K][N])
{
  for (int i = 0; i < M; i++) {
    for (int j = 0; j < N; j++)
      C[i][j] *= beta;
    for (int k = 0; k < K; k++)
      for (int j = 0; j < N; j++)
        C[i][j] += alpha * A[i][k] * B[k][j];
  }
}
