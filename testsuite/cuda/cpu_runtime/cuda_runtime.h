// A CPU stand-in for the CUDA runtime subset gpucc emits, used by the testsuite to run
// generated .cu files without a GPU. Blocks run one after another; the threads of a block
// run as real threads and meet at a barrier for __syncthreads(); __shared__ data is one
// instance shared by exactly the threads of the running block. Launches are written
// `gpucc_launch(kernel, grid, block, args...)` (the test rewrites `k<<<g, b>>>(...)`).
#ifndef GPUCC_CPU_RUNTIME_H
#define GPUCC_CPU_RUNTIME_H

#include <algorithm>
#include <barrier>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

struct dim3 {
  unsigned x, y, z;
  dim3(unsigned x = 1, unsigned y = 1, unsigned z = 1) : x(x), y(y), z(z) {}
};

inline thread_local dim3 threadIdx;
inline thread_local dim3 blockIdx;
inline dim3 blockDim;
inline dim3 gridDim;
inline std::barrier<> *gpucc_block_barrier = nullptr;

typedef int cudaError_t;
enum { cudaSuccess = 0, cudaErrorMemoryAllocation = 2 };
enum cudaMemcpyKind { cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost, cudaMemcpyDeviceToDevice };

inline cudaError_t cudaMalloc(void **p, size_t n) {
  *p = calloc(1, n);
  return *p ? cudaSuccess : cudaErrorMemoryAllocation;
}
inline cudaError_t cudaFree(void *p) { free(p); return cudaSuccess; }
inline cudaError_t cudaMemcpy(void *d, const void *s, size_t n, cudaMemcpyKind) { memcpy(d, s, n); return cudaSuccess; }
#define cudaMemcpyToSymbol(symbol, source, bytes) (memcpy(&(symbol), (source), (bytes)), cudaSuccess)
inline cudaError_t cudaGetLastError() { return cudaSuccess; }
inline const char *cudaGetErrorString(cudaError_t) { return "CPU runtime error"; }

#define __global__
#define __device__
#define __host__
#define __constant__
#define __shared__ static
#define __syncthreads() gpucc_block_barrier->arrive_and_wait()
template <class T> T __ldg(const T *p) { return *p; }
using std::max;
using std::min;

template <class Kernel, class... Args>
void gpucc_launch(Kernel kernel, dim3 grid, dim3 block, Args... args) {
  gridDim = grid;
  blockDim = block;
  unsigned threads = block.x * block.y * block.z;
  for (unsigned bz = 0; bz < grid.z; bz++)
    for (unsigned by = 0; by < grid.y; by++)
      for (unsigned bx = 0; bx < grid.x; bx++) {
        std::barrier<> barrier(threads);
        gpucc_block_barrier = &barrier;
        std::vector<std::thread> pool;
        for (unsigned t = 0; t < threads; t++)
          pool.emplace_back([=] {
            blockIdx = dim3(bx, by, bz);
            threadIdx = dim3(t % block.x, t / block.x % block.y, t / (block.x * block.y));
            kernel(args...);
          });
        for (auto &th : pool) th.join();
      }
}

#endif
