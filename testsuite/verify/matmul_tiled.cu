// A tiled matrix product written by hand in the style of the CUDA programming guide:
// 16 x 16 tiles of A and B staged in shared memory, two barriers per tile.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define N 64
#define TILE 16

#define CHECK(call)                                                        \
  do {                                                                     \
    cudaError_t status = (call);                                           \
    if (status != cudaSuccess) {                                           \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(status)); \
      exit(1);                                                             \
    }                                                                      \
  } while (0)

__global__ void matmul_tiled(const float *A, const float *B, float *C)
{
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  int row = blockIdx.y * TILE + threadIdx.y;
  int col = blockIdx.x * TILE + threadIdx.x;
  float sum = 0.0f;
  for (int t = 0; t < N / TILE; t++) {
    As[threadIdx.y][threadIdx.x] = A[row * N + t * TILE + threadIdx.x];
    Bs[threadIdx.y][threadIdx.x] = B[(t * TILE + threadIdx.y) * N + col];
    __syncthreads();
    for (int k = 0; k < TILE; k++)
      sum += As[threadIdx.y][k] * Bs[k][threadIdx.x];
    __syncthreads();
  }
  C[row * N + col] = sum;
}

void matmul(const float A[N][N], const float B[N][N], float C[N][N])
{
  float *dA, *dB, *dC;
  size_t bytes = sizeof(float) * N * N;
  CHECK(cudaMalloc((void **)&dA, bytes));
  CHECK(cudaMalloc((void **)&dB, bytes));
  CHECK(cudaMalloc((void **)&dC, bytes));
  CHECK(cudaMemcpy(dA, A, bytes, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dB, B, bytes, cudaMemcpyHostToDevice));
  matmul_tiled<<<dim3(N / TILE, N / TILE), dim3(TILE, TILE)>>>(dA, dB, dC);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(C, dC, bytes, cudaMemcpyDeviceToHost));
  CHECK(cudaFree(dA));
  CHECK(cudaFree(dB));
  CHECK(cudaFree(dC));
}
