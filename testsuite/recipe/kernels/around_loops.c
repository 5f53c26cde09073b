// A statement before the loop and one after it: the local scalar `scale` is set before the
// loop that reads it, and the last statement reads what the loop wrote.
#define N 1000

void scale_vector(const float x[N], float y[N], float ends[1])
{
  float scale = 0.5f;
  for (int i = 0; i < N; i++)
    y[i] = scale * x[i];
  ends[0] = y[0] + y[N - 1];
}
