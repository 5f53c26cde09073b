// SGEMM with sizes known only at run time: C = alpha * A * B + beta * C, C is ni x nj,
// A is ni x nk, B is nk x nj (symbolic sizes: the arrays' dimensions are int parameters).
void gemm_symbolic(int ni, int nj, int nk, float alpha, float beta, float C[ni][nj],
                   const float A[ni][nk], const float B[nk][nj])
{
  for (int i = 0; i < ni; i++)
    for (int j = 0; j < nj; j++) {
      C[i][j] *= beta;
      for (int k = 0; k < nk; k++)
        C[i][j] += alpha * A[i][k] * B[k][j];
    }
}
