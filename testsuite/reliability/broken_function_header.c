// gpucc-run: FILE
// gpucc-exit: 1
// gpucc-says: the original C does not compile (the C compiler's first error)
// gpucc-says: broken_function_header.c:9:1:
// A syntax error that hides the function (its header lacks a `)`) was reported as "has
// no function definition", nowhere in the file; the C compiler's first error says where.
#define N 10
void scale(float A[N]
{
  for (int i = 0; i < N; i++)
    A[i] = 2 * A[i];
}
