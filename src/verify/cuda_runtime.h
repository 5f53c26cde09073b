// gpucc's CPU stand-in for the CUDA runtime subset it emits, so that generated .cu files
// run without a GPU (gpucc embeds this file and writes it out to check a .cu).
//
// Blocks run one after another. The threads of a block are fibers (ucontext) on one OS
// thread, run round-robin: each runs until it reaches __syncthreads() or ends, so every
// thread reaches a barrier before any thread passes it, deterministically. __shared__
// data is one instance shared by exactly the threads of the running block. Launches are
// `gpucc_launch<BARRIERS>(kernel, grid, block, args...)`: gpucc rewrites
// `kernel<<<grid, block>>>(args...)` so before compiling.
#ifndef GPUCC_CPU_RUNTIME_H
#define GPUCC_CPU_RUNTIME_H

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <ucontext.h>
#include <vector>

struct dim3 {
  unsigned x, y, z;
  dim3(unsigned x = 1, unsigned y = 1, unsigned z = 1) : x(x), y(y), z(z) {}
};

inline dim3 threadIdx;
inline dim3 blockIdx;
inline dim3 blockDim;
inline dim3 gridDim;

typedef int cudaError_t;
enum { cudaSuccess = 0, cudaErrorMemoryAllocation = 2, cudaErrorLaunchFailure = 4 };
enum cudaMemcpyKind { cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost, cudaMemcpyDeviceToDevice };

inline cudaError_t cudaMalloc(void **p, size_t n) {
  *p = calloc(1, n ? n : 1);
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
template <class T> T __ldg(const T *p) { return *p; }
using std::max;
using std::min;

// ------------------------------------------------------------------ fibers

struct gpucc_fiber {
  ucontext_t context;
  std::vector<char> stack;
  bool done = false;
  dim3 index;
};

inline ucontext_t gpucc_scheduler;
inline gpucc_fiber *gpucc_running = nullptr;
inline const std::function<void()> *gpucc_body = nullptr;

inline void gpucc_fiber_main() {
  (*gpucc_body)();
  gpucc_running->done = true;
}

inline void __syncthreads() {
  if (!gpucc_running) {
    fprintf(stderr, "gpucc CPU runtime: __syncthreads() in a kernel launched without barriers\n");
    abort();
  }
  swapcontext(&gpucc_running->context, &gpucc_scheduler);
}

// Runs one block: all threads as fibers, round-robin from barrier to barrier.
inline void gpucc_run_fibers(std::vector<gpucc_fiber> &fibers, const std::function<void()> &body) {
  const size_t stack_size = 256 * 1024;
  gpucc_body = &body;
  for (auto &f : fibers) {
    f.done = false;
    if (f.stack.empty()) f.stack.resize(stack_size);
    getcontext(&f.context);
    f.context.uc_stack.ss_sp = f.stack.data();
    f.context.uc_stack.ss_size = f.stack.size();
    f.context.uc_link = &gpucc_scheduler;
    makecontext(&f.context, gpucc_fiber_main, 0);
  }
  for (;;) {
    size_t finished = 0;
    for (auto &f : fibers) {
      if (f.done) { finished++; continue; }
      threadIdx = f.index;
      gpucc_running = &f;
      swapcontext(&gpucc_scheduler, &f.context);
      gpucc_running = nullptr;
      if (f.done) finished++;
    }
    if (finished == fibers.size()) break;
    if (finished != 0) {
      fprintf(stderr, "gpucc CPU runtime: some threads of block (%u, %u, %u) ended while others wait at __syncthreads()\n", blockIdx.x, blockIdx.y, blockIdx.z);
      abort();
    }
  }
}

// `Barriers` says whether the kernel calls __syncthreads(): gpucc reads it off the kernel's
// text when it rewrites the launch. Without barriers the threads run as plain calls.
template <bool Barriers, class Kernel, class... Args>
void gpucc_launch(Kernel kernel, dim3 grid, dim3 block, Args... args) {
  gridDim = grid;
  blockDim = block;
  std::function<void()> body = [&] { kernel(args...); };
  static std::vector<gpucc_fiber> fibers;
  fibers.resize(block.x * block.y * block.z);
  for (unsigned t = 0; t < fibers.size(); t++)
    fibers[t].index = dim3(t % block.x, t / block.x % block.y, t / (block.x * block.y));
  for (unsigned bz = 0; bz < grid.z; bz++)
    for (unsigned by = 0; by < grid.y; by++)
      for (unsigned bx = 0; bx < grid.x; bx++) {
        blockIdx = dim3(bx, by, bz);
        if (Barriers) {
          gpucc_run_fibers(fibers, body);
        } else {
          for (auto &f : fibers) { threadIdx = f.index; body(); }
        }
      }
}

#endif
