// Row sums written as the CUDA samples write host code: cuda_runtime.h included, typed
// cudaMalloc, pinned host memory, a stream with asynchronous copies and a launch on it,
// events around the launch, a reset with cudaMemset, and a constant through
// cudaMemcpyToSymbol with an offset. The CPU runtime must take all of it (issue 20).
#include <cuda_runtime.h>
#include <cstdio>
#define N 64

__constant__ float scale[2];

__global__ void rowsum_kernel(const float *A, float *s)
{
  int i = blockIdx.x;
  int j = threadIdx.x;
  atomicAdd(&s[i], A[i * N + j] * scale[1]);
}

void rowsum(const float A[N][N], float s[N])
{
  float *dA, *ds, *staging;
  const float one = 1.0f;
  cudaMemcpyToSymbol(scale, &one, sizeof(float), sizeof(float), cudaMemcpyHostToDevice);
  cudaStream_t stream;
  cudaStreamCreate(&stream);
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  cudaMalloc(&dA, sizeof(float) * N * N);
  cudaMalloc(&ds, sizeof(float) * N);
  cudaMallocHost(&staging, sizeof(float) * N);
  cudaMemset(ds, 0, sizeof(float) * N);
  cudaMemcpyAsync(dA, A, sizeof(float) * N * N, cudaMemcpyHostToDevice, stream);
  cudaMemcpyAsync(staging, s, sizeof(float) * N, cudaMemcpyHostToHost, stream);
  cudaMemcpyAsync(ds, staging, sizeof(float) * N, cudaMemcpyHostToDevice, stream);
  cudaEventRecord(start, stream);
  rowsum_kernel<<<N, N, 0, stream>>>(dA, ds);
  cudaEventRecord(stop, stream);
  cudaMemcpyAsync(s, ds, sizeof(float) * N, cudaMemcpyDeviceToHost, stream);
  cudaStreamSynchronize(stream);
  cudaEventSynchronize(stop);
  float ms = 0.0f;
  cudaEventElapsedTime(&ms, start, stop);
  if (cudaGetLastError() != cudaSuccess)
    fprintf(stderr, "launch failed\n");
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  cudaStreamDestroy(stream);
  cudaFreeHost(staging);
  cudaFree(dA);
  cudaFree(ds);
}
