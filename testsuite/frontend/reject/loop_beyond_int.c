/* The C counts in a long; gpucc's CUDA counts loops in int. */
#define N 3000000000L

void f(float A[10])
{
  for (long i = 0; i < N; i++)
    A[i % 10] = A[i % 10] + 1;
}
