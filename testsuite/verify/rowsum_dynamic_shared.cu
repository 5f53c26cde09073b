// Row sums as the CUDA samples' reductions write them: the block's partial sums in
// dynamic shared memory (`extern __shared__ float sdata[]`, its size the launch's third
// argument), halved tree-wise between barriers. The CPU runtime must give the launch its
// bytes, check every access against them, and find the races of a missing barrier.
#include <cuda_runtime.h>
#define N 64

__global__ void rowsum_kernel(const float *A, float *s)
{
  extern __shared__ float sdata[];
  unsigned j = threadIdx.x;
  sdata[j] = A[blockIdx.x * N + j];
  __syncthreads();
  for (unsigned half = blockDim.x / 2; half > 0; half /= 2) {
    if (j < half)
      sdata[j] += sdata[j + half];
    __syncthreads();
  }
  if (j == 0)
    s[blockIdx.x] += sdata[0];
}

void rowsum(const float A[N][N], float s[N])
{
  float *dA, *ds;
  cudaMalloc(&dA, sizeof(float) * N * N);
  cudaMalloc(&ds, sizeof(float) * N);
  cudaMemcpy(dA, A, sizeof(float) * N * N, cudaMemcpyHostToDevice);
  cudaMemcpy(ds, s, sizeof(float) * N, cudaMemcpyHostToDevice);
  rowsum_kernel<<<N, N, N * sizeof(float)>>>(dA, ds);
  cudaMemcpy(s, ds, sizeof(float) * N, cudaMemcpyDeviceToHost);
  cudaFree(dA);
  cudaFree(ds);
}
