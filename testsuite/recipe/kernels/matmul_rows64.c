// C += A B on 62 x 62 matrices stored in rows of 64 floats: the last k tile (48..61) ends
// inside a vector of four (60..63).
#define N 62

void matmul_rows64(const float A[N][64], const float B[N][64], float C[N][64])
{
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      for (int k = 0; k < N; k++)
        C[i][j] += A[i][k] * B[k][j];
}
