// gpucc's launch wrapper for checks on a GPU (`gpucc verify --device gpu`), included
// before the emitted .cu, which nvcc compiles against the real CUDA runtime.
//
// gpucc rewrites `kernel<<<grid, block>>>(args...)` to
// `gpucc_launch<BARRIERS>("kernel", kernel, grid, block, shared, args...)` (`shared`: the
// bytes of dynamic shared memory, 0 without), as for the CPU runtime. Each launch runs
// once; when `gpucc_time_runs` > 0 (the timing pass, after the comparison, or a second run
// of a whole program) it then runs that many more times, each between two CUDA events, and
// the median joins the kernel's total.
#ifndef GPUCC_GPU_RUNTIME_H
#define GPUCC_GPU_RUNTIME_H

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>
#include <vector>

inline void gpucc_print_times();

// A whole program (a `#pragma scop` region's file) is timed by running it again with
// GPUCC_TIME_PROGRAM=RUNS: every launch timed, the times printed at exit.
inline int gpucc_time_runs = [] {
  const char *runs = getenv("GPUCC_TIME_PROGRAM");
  if (!runs) return 0;
  atexit(gpucc_print_times);
  return atoi(runs);
}();

struct gpucc_kernel_time {
  const char *name;
  long launches;
  double total_us;
};
inline std::vector<gpucc_kernel_time> gpucc_times;

inline void gpucc_gpu_check(cudaError_t e, const char *what) {
  if (e != cudaSuccess) {
    fprintf(stderr, "gpucc GPU runtime: %s: %s\n", what, cudaGetErrorString(e));
    exit(2);
  }
}

template <bool BARRIERS, class... P, class... A>
void gpucc_launch(const char *name, void (*kernel)(P...), dim3 grid, dim3 block, size_t shared, A... args) {
  kernel<<<grid, block, shared>>>(args...);
  if (gpucc_time_runs <= 0) return;
  gpucc_gpu_check(cudaDeviceSynchronize(), name);
  cudaEvent_t start, stop;
  gpucc_gpu_check(cudaEventCreate(&start), "cudaEventCreate");
  gpucc_gpu_check(cudaEventCreate(&stop), "cudaEventCreate");
  std::vector<float> ms;
  for (int r = 0; r < gpucc_time_runs; r++) {
    cudaEventRecord(start);
    kernel<<<grid, block, shared>>>(args...);
    cudaEventRecord(stop);
    gpucc_gpu_check(cudaEventSynchronize(stop), name);
    float t = 0;
    cudaEventElapsedTime(&t, start, stop);
    ms.push_back(t);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  std::sort(ms.begin(), ms.end());
  size_t n = ms.size();
  double median = n % 2 ? ms[n / 2] : 0.5 * (ms[n / 2 - 1] + ms[n / 2]);
  for (auto &t : gpucc_times) {
    if (strcmp(t.name, name) == 0) {
      t.launches++;
      t.total_us += median * 1000.0;
      return;
    }
  }
  gpucc_times.push_back({name, 1, median * 1000.0});
}

// One line per kernel: `gpucc-time NAME LAUNCHES TOTAL_US`.
inline void gpucc_print_times() {
  for (auto &t : gpucc_times) printf("gpucc-time %s %ld %.3f\n", t.name, t.launches, t.total_us);
}

#endif
