// An `inline` function (C99: no external definition unless declared without `inline`).
#define N 64
inline void shift(float A[N], const float B[N]) {
  for (int i = 0; i < N; i++)
    A[i] = B[i] + 1;
}
