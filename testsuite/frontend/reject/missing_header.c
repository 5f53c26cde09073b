// A header the preprocessor cannot find: its macros are unknown, and the note says why.
#include "no_such_header.h"

void f(float A[N])
{
  for (int i = 0; i < N; i++)
    A[i] = 0;
}
