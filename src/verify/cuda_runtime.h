// gpucc's CPU stand-in for the CUDA runtime subset it emits, so that generated .cu files
// run without a GPU (gpucc embeds this file and writes it out to check a .cu).
//
// Blocks run one after another. The threads of a block are fibers (ucontext) on one OS
// thread, run round-robin: each runs until it reaches __syncthreads() or a warp shuffle,
// or ends, so every thread reaches a barrier before any thread passes it (and every lane
// of a shuffle's mask reaches the shuffle before any lane gets its value),
// deterministically. __shared__
// data is one instance shared by exactly the threads of the running block. Launches are
// `gpucc_launch<BARRIERS>("kernel", kernel, grid, block, shared, args...)`: gpucc rewrites
// `kernel<<<grid, block, shared>>>(args...)` so before compiling (`shared`: the bytes of
// dynamic shared memory, 0 when the launch gives none).
#ifndef GPUCC_CPU_RUNTIME_H
#define GPUCC_CPU_RUNTIME_H

// Only light headers: every check compiles this file (cached as a precompiled header
// where the compiler is GCC), and <functional>, <unordered_map> and <vector> alone doubled
// the time of a check's compile.
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <type_traits>
#include <ucontext.h>

struct dim3 {
  unsigned x, y, z;
  dim3(unsigned x = 1, unsigned y = 1, unsigned z = 1) : x(x), y(y), z(z) {}
};

inline dim3 threadIdx;
inline dim3 blockIdx;
inline dim3 blockDim;
inline dim3 gridDim;

typedef int cudaError_t;
enum { cudaSuccess = 0, cudaErrorInvalidValue = 1, cudaErrorMemoryAllocation = 2, cudaErrorLaunchFailure = 4, cudaErrorInvalidConfiguration = 9 };
enum cudaMemcpyKind { cudaMemcpyHostToHost, cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost, cudaMemcpyDeviceToDevice, cudaMemcpyDefault };

inline cudaError_t cudaMalloc(void **p, size_t n) {
  *p = calloc(1, n ? n : 1);
  return *p ? cudaSuccess : cudaErrorMemoryAllocation;
}
inline cudaError_t cudaFree(void *p) { free(p); return cudaSuccess; }
inline cudaError_t cudaMemcpy(void *d, const void *s, size_t n, cudaMemcpyKind) { memcpy(d, s, n); return cudaSuccess; }
inline cudaError_t cudaMemset(void *p, int v, size_t n) { memset(p, v, n); return cudaSuccess; }
// The CUDA headers' template overloads (`float *d; cudaMalloc(&d, bytes);`), managed and
// pinned host memory (all of it host memory here).
template <class T> inline cudaError_t cudaMalloc(T **p, size_t n) { return cudaMalloc((void **)p, n); }
inline cudaError_t cudaMallocManaged(void **p, size_t n, unsigned = 1) { return cudaMalloc(p, n); }
template <class T> inline cudaError_t cudaMallocManaged(T **p, size_t n, unsigned f = 1) { return cudaMallocManaged((void **)p, n, f); }
inline cudaError_t cudaMallocHost(void **p, size_t n) { return cudaMalloc(p, n); }
template <class T> inline cudaError_t cudaMallocHost(T **p, size_t n) { return cudaMallocHost((void **)p, n); }
inline cudaError_t cudaHostAlloc(void **p, size_t n, unsigned) { return cudaMalloc(p, n); }
template <class T> inline cudaError_t cudaHostAlloc(T **p, size_t n, unsigned f) { return cudaHostAlloc((void **)p, n, f); }
inline cudaError_t cudaFreeHost(void *p) { free(p); return cudaSuccess; }
// `cudaMemcpyToSymbol(symbol, source, bytes[, offset[, kind]])`, and from.
inline cudaError_t gpucc_to_symbol(void *symbol, const void *s, size_t n, size_t offset = 0, cudaMemcpyKind = cudaMemcpyHostToDevice) {
  memcpy((char *)symbol + offset, s, n);
  return cudaSuccess;
}
inline cudaError_t gpucc_from_symbol(void *d, const void *symbol, size_t n, size_t offset = 0, cudaMemcpyKind = cudaMemcpyDeviceToHost) {
  memcpy(d, (const char *)symbol + offset, n);
  return cudaSuccess;
}
#define cudaMemcpyToSymbol(symbol, ...) gpucc_to_symbol(&(symbol), __VA_ARGS__)
#define cudaMemcpyFromSymbol(destination, symbol, ...) gpucc_from_symbol((destination), &(symbol), __VA_ARGS__)
// Streams and events: the CPU runtime runs everything in program order, which is an order
// a stream allows; an event's elapsed time is 0.
typedef struct gpucc_stream *cudaStream_t;
typedef struct gpucc_event *cudaEvent_t;
inline cudaError_t cudaStreamCreate(cudaStream_t *s) { *s = nullptr; return cudaSuccess; }
inline cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned) { *s = nullptr; return cudaSuccess; }
inline cudaError_t cudaStreamDestroy(cudaStream_t) { return cudaSuccess; }
inline cudaError_t cudaStreamSynchronize(cudaStream_t) { return cudaSuccess; }
inline cudaError_t cudaMemcpyAsync(void *d, const void *s, size_t n, cudaMemcpyKind k, cudaStream_t = nullptr) { return cudaMemcpy(d, s, n, k); }
inline cudaError_t cudaMemsetAsync(void *p, int v, size_t n, cudaStream_t = nullptr) { return cudaMemset(p, v, n); }
inline cudaError_t cudaEventCreate(cudaEvent_t *e) { *e = nullptr; return cudaSuccess; }
inline cudaError_t cudaEventRecord(cudaEvent_t, cudaStream_t = nullptr) { return cudaSuccess; }
inline cudaError_t cudaEventSynchronize(cudaEvent_t) { return cudaSuccess; }
inline cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t, cudaEvent_t) { *ms = 0.0f; return cudaSuccess; }
inline cudaError_t cudaEventDestroy(cudaEvent_t) { return cudaSuccess; }
// The error of the last launch that failed (a configuration a GPU refuses), until read.
inline cudaError_t gpucc_last_error = cudaSuccess;
inline cudaError_t cudaGetLastError() {
  cudaError_t e = gpucc_last_error;
  gpucc_last_error = cudaSuccess;
  return e;
}
inline cudaError_t cudaPeekAtLastError() { return gpucc_last_error; }
inline cudaError_t cudaDeviceSynchronize() { return cudaSuccess; }
inline const char *cudaGetErrorString(cudaError_t e) {
  switch (e) {
    case cudaSuccess: return "no error";
    case cudaErrorMemoryAllocation: return "out of memory";
    case cudaErrorInvalidConfiguration: return "invalid configuration argument";
    case cudaErrorInvalidValue: return "invalid argument";
    default: return "unspecified launch failure";
  }
}

#define __global__
// Register limits for nvcc (`launch_bounds` in a recipe); nothing to do on the CPU.
#define __launch_bounds__(...)
#define __device__
#define __host__
#define __constant__
#define __shared__ static
template <class T> T __ldg(const T *p) { return *p; }

// CUDA's min and max take any two arithmetic operands (its overloads cover mixed int,
// unsigned, long long, float and double); the result has the operands' common type, as
// in CUDA. A file's own min/max macro, defined after this header, takes precedence.
template <class A, class B> inline auto min(A a, B b) -> decltype(a + b) { return b < a ? b : a; }
template <class A, class B> inline auto max(A a, B b) -> decltype(a + b) { return a < b ? b : a; }

// ------------------------------------------------------------------ race detection
//
// gpucc rewrites a kernel's array parameters to gpucc_array<T> and its __shared__ arrays
// to gpucc_shared<T> before compiling a check; their elements are gpucc_ref proxies that
// log each read and write. Two threads of a block touching one address between two
// barriers, one writing, is a race; so are two blocks of one launch touching one global
// address, one writing. The first race found stops the program with exit code 42.

struct gpucc_who {
  int id = -1;  // linear thread (or block) index; -1: none
  bool many = false;
};

struct gpucc_cell {
  gpucc_who writer, reader, second_reader;
};

// The cells of the addresses touched since a point (a barrier, a launch): an
// open-addressing hash table whose clear() is O(1) (a slot counts only if it was written
// in the current generation).
struct gpucc_cells {
  struct slot {
    const void *addr;
    unsigned generation;
    gpucc_cell cell;
  };
  slot *slots = nullptr;
  size_t capacity = 0, used = 0;
  unsigned generation = 1;

  void clear() {
    used = 0;
    if (++generation == 0) {  // wrapped: old generations could look current
      for (size_t k = 0; k < capacity; k++) slots[k].generation = 0;
      generation = 1;
    }
  }
  static size_t hash(const void *addr) {
    size_t h = (size_t)addr;
    h ^= h >> 17;
    h *= (size_t)0x9E3779B97F4A7C15ull;
    return h ^ (h >> 29);
  }
  __attribute__((noinline)) void grow() {
    slot *old = slots;
    size_t old_capacity = capacity;
    capacity = capacity ? 2 * capacity : 1024;
    slots = (slot *)calloc(capacity, sizeof(slot));
    if (!slots) {
      fprintf(stderr, "gpucc CPU runtime: out of memory for the race detector\n");
      abort();
    }
    used = 0;
    for (size_t k = 0; k < old_capacity; k++)
      if (old[k].generation == generation) (*this)[old[k].addr] = old[k].cell;
    free(old);
  }
  gpucc_cell &operator[](const void *addr) {
    if (2 * (used + 1) > capacity) grow();
    size_t mask = capacity - 1;
    for (size_t k = hash(addr) & mask;; k = (k + 1) & mask) {
      slot &s = slots[k];
      if (s.generation != generation) {
        s.addr = addr;
        s.generation = generation;
        s.cell = gpucc_cell();
        used++;
        return s.cell;
      }
      if (s.addr == addr) return s.cell;
    }
  }
};

inline gpucc_cells gpucc_block_cells;
inline gpucc_cells gpucc_launch_cells;
inline const char *gpucc_kernel_name = "?";
inline int gpucc_thread_id = 0;
inline int gpucc_block_id = 0;

inline void gpucc_print_index(FILE *f, dim3 extent, int id) {
  fprintf(f, "(%u, %u, %u)", id % extent.x, id / extent.x % extent.y, id / (extent.x * extent.y));
}

[[noreturn]] inline void gpucc_race(const char *name, const long *idx, int rank, bool across_blocks,
                                    int first, bool first_writes, int second, bool second_writes) {
  fprintf(stderr, "gpucc CPU runtime: data race in kernel %s on %s", gpucc_kernel_name, name);
  for (int k = 0; k < rank; k++) fprintf(stderr, "[%ld]", idx[k]);
  dim3 extent = across_blocks ? gridDim : blockDim;
  fprintf(stderr, ": %s ", across_blocks ? "block" : "thread");
  gpucc_print_index(stderr, extent, first);
  fprintf(stderr, " %s it and %s ", first_writes ? "writes" : "reads", across_blocks ? "block" : "thread");
  gpucc_print_index(stderr, extent, second);
  fprintf(stderr, " %s it", second_writes ? "writes" : "reads");
  if (across_blocks) {
    fprintf(stderr, " in the same launch\n");
  } else {
    fprintf(stderr, " in block ");
    gpucc_print_index(stderr, gridDim, gpucc_block_id);
    fprintf(stderr, " with no __syncthreads() between\n");
  }
  fflush(stderr);
  _Exit(42);
}

// Logs one access by `me` in `cells`; reports a conflict with an earlier one.
inline void gpucc_log(gpucc_cells &cells, const void *addr, bool write, int me,
                      const char *name, const long *idx, int rank, bool across_blocks) {
  gpucc_cell &c = cells[addr];
  if (c.writer.id >= 0 && c.writer.id != me) gpucc_race(name, idx, rank, across_blocks, c.writer.id, true, me, write);
  if (write) {
    if (c.reader.id >= 0 && c.reader.id != me) gpucc_race(name, idx, rank, across_blocks, c.reader.id, false, me, true);
    if (c.second_reader.id >= 0 && c.second_reader.id != me)
      gpucc_race(name, idx, rank, across_blocks, c.second_reader.id, false, me, true);
    c.writer.id = me;
  } else if (c.reader.id < 0) {
    c.reader.id = me;
  } else if (c.reader.id != me && c.second_reader.id < 0) {
    c.second_reader.id = me;
  }
}

// Not inlined: every element access of a kernel calls it, and inlined it made the compile slow.
__attribute__((noinline)) inline void gpucc_touch(const void *addr, bool write, const char *name, const long *idx, int rank, bool global) {
  gpucc_log(gpucc_block_cells, addr, write, gpucc_thread_id, name, idx, rank, false);
  if (global) gpucc_log(gpucc_launch_cells, addr, write, gpucc_block_id, name, idx, rank, true);
}

template <class T> struct gpucc_ref;

// Where an element proxy came from: the array's name and the subscripts so far.
struct gpucc_place {
  const char *name;
  long idx[6];
  int rank;
  bool global;
  gpucc_place then(long i) const {
    gpucc_place p = *this;
    if (p.rank < 6) p.idx[p.rank++] = i;
    return p;
  }
};

template <class T> struct gpucc_addr;

// An element: reads and writes are logged.
template <class T> struct gpucc_ref {
  T *p;
  gpucc_place at;
  using V = std::remove_const_t<T>;
  operator V() const {
    gpucc_touch(p, false, at.name, at.idx, at.rank, at.global);
    return *p;
  }
  gpucc_ref &operator=(V v) {
    gpucc_touch(p, true, at.name, at.idx, at.rank, at.global);
    *p = v;
    return *this;
  }
  gpucc_ref &operator=(const gpucc_ref &o) { return *this = V(o); }
  // `x op= v` is `x = x op v` in the operands' common type, as in C and CUDA (a float
  // element `+=` a double adds in double; converting `v` to float first rounds twice).
  template <class U> gpucc_ref &operator+=(U v) { return *this = V(V(*this) + v); }
  template <class U> gpucc_ref &operator-=(U v) { return *this = V(V(*this) - v); }
  template <class U> gpucc_ref &operator*=(U v) { return *this = V(V(*this) * v); }
  template <class U> gpucc_ref &operator/=(U v) { return *this = V(V(*this) / v); }
  template <class U> gpucc_ref &operator%=(U v) { return *this = V(V(*this) % v); }
  gpucc_addr<T> operator&() const { return {*this}; }
};

// A row of a multi-dimensional array: subscripting goes on.
template <class U, size_t M> struct gpucc_ref<U[M]> {
  U (*p)[M];
  gpucc_place at;
  gpucc_ref<U> operator[](long j) const { return {&(*p)[j], at.then(j)}; }
};

template <class T> struct gpucc_addr {
  gpucc_ref<T> r;
  // An address handed to a function that takes a pointer (an atomic helper): not logged.
  operator T *() const { return r.p; }
};
template <class T> std::remove_const_t<T> __ldg(gpucc_addr<T> a) { return a.r; }

// A kernel's array parameter (a pointer to T in CUDA).
template <class T> struct gpucc_array {
  T *p;
  const char *gpucc_name = "?";
  gpucc_array(T *p) : p(p) {}
  gpucc_ref<T> operator[](long i) const { return {&p[i], gpucc_place{gpucc_name, {i}, 1, true}}; }
  // A scalar in device memory, `*sum`.
  gpucc_ref<T> operator*() const { return {p, gpucc_place{gpucc_name, {0}, 0, true}}; }
  // The pointer handed to a function that takes one (an atomic helper): not logged.
  operator T *() const { return p; }
};

// Shared memory holds nothing a block may rely on when it starts: the __shared__ arrays
// met so far are filled with 0xFF bytes (a NaN in every float and double) before each
// block runs, and so is a launch's dynamic shared memory, so that a read of an element
// no thread of the block wrote shows in the results instead of reading a zero, or what
// the block before wrote, by luck.
struct gpucc_shared_region {
  void *p;
  size_t bytes;
};
inline gpucc_shared_region gpucc_shared_regions[256];
inline int gpucc_shared_region_count = 0;

// A __shared__ array of type T, aligned as the widest vector a wide copy stores
// (`__shared__ __align__(16)`: gpucc's rewrite drops the attribute).
template <class T> struct gpucc_shared {
  using E = std::remove_extent_t<T>;
  alignas(16) T data;
  const char *gpucc_name;
  explicit gpucc_shared(const char *name) : gpucc_name(name) {
    memset((void *)&data, 0xFF, sizeof(T));
    if (gpucc_shared_region_count < 256) gpucc_shared_regions[gpucc_shared_region_count++] = {(void *)&data, sizeof(T)};
  }
  gpucc_ref<E> operator[](long i) { return {&data[i], gpucc_place{gpucc_name, {i}, 1, false}}; }
};

// ------------------------------------------------------------------ dynamic shared memory
//
// A launch's dynamic shared memory (`kernel<<<grid, block, bytes>>>`) is one buffer, as
// on a GPU, reached two ways: `extern __shared__ T name[];` in a kernel becomes
// gpucc_dynamic<T> (each element a tracked, bounds-checked gpucc_ref; a pointer declared
// into it, gpucc_shared_ptr<T>, likewise; converted to a plain `T *` and handed to a
// function, its accesses are neither tracked nor checked), and the arrays gpucc carves out of
// it (`T (&name)[N]... = *reinterpret_cast<T (*)[N]...>(base + offset);`, where one block's
// tiles are over the 48 KB it may declare statically) become gpucc_shared_at<T[N]...>.

// The most a block of any CUDA device may have (sm_90: 227 KB, with the opt-in attribute),
// and the most a launch may ask for without it.
constexpr size_t gpucc_max_dynamic_shared = 227 * 1024;
constexpr size_t gpucc_default_dynamic_shared = 48 * 1024;
inline unsigned char *gpucc_dynamic_shared = nullptr;
inline size_t gpucc_dynamic_shared_size = 0, gpucc_dynamic_shared_capacity = 0;

enum cudaFuncAttribute { cudaFuncAttributeMaxDynamicSharedMemorySize = 8, cudaFuncAttributePreferredSharedMemoryCarveout = 9 };

// cudaFuncAttributeMaxDynamicSharedMemorySize as set per kernel (a few kernels a program).
struct gpucc_kernel_limit {
  const void *kernel;
  size_t bytes;
};
inline gpucc_kernel_limit gpucc_kernel_limits[64];
inline int gpucc_kernel_limit_count = 0;

// The limit set for `kernel`, or null where none was.
inline gpucc_kernel_limit *gpucc_limit_of(const void *kernel) {
  for (int k = 0; k < gpucc_kernel_limit_count; k++)
    if (gpucc_kernel_limits[k].kernel == kernel) return &gpucc_kernel_limits[k];
  return nullptr;
}

template <class Kernel> size_t gpucc_dynamic_shared_allowed(Kernel kernel) {
  const gpucc_kernel_limit *limit = gpucc_limit_of((const void *)kernel);
  return limit ? limit->bytes : gpucc_default_dynamic_shared;
}

template <class Kernel> cudaError_t cudaFuncSetAttribute(Kernel kernel, cudaFuncAttribute attribute, int value) {
  if (attribute != cudaFuncAttributeMaxDynamicSharedMemorySize) return cudaSuccess;  // a hint on the CPU
  if (value < 0 || (size_t)value > gpucc_max_dynamic_shared) return cudaErrorInvalidValue;
  if (gpucc_kernel_limit *limit = gpucc_limit_of((const void *)kernel)) {
    limit->bytes = (size_t)value;
    return cudaSuccess;
  }
  if (gpucc_kernel_limit_count == 64) return cudaErrorInvalidValue;
  gpucc_kernel_limits[gpucc_kernel_limit_count++] = {(const void *)kernel, (size_t)value};
  return cudaSuccess;
}

// The buffer of a launch's `bytes` (kept, and grown, from launch to launch).
inline void gpucc_dynamic_shared_for(size_t bytes) {
  if (bytes > gpucc_dynamic_shared_capacity) {
    free(gpucc_dynamic_shared);
    size_t rounded = (bytes + 15) / 16 * 16;
    gpucc_dynamic_shared = (unsigned char *)aligned_alloc(16, rounded);
    if (!gpucc_dynamic_shared) {
      fprintf(stderr, "gpucc CPU runtime: out of memory for %zu bytes of dynamic shared memory\n", bytes);
      abort();
    }
    gpucc_dynamic_shared_capacity = rounded;
  }
  gpucc_dynamic_shared_size = bytes;
}

// Before each block: its shared memory as a GPU leaves it, undefined (see gpucc_shared).
inline void gpucc_poison_shared() {
  for (int k = 0; k < gpucc_shared_region_count; k++)
    memset(gpucc_shared_regions[k].p, 0xFF, gpucc_shared_regions[k].bytes);
  if (gpucc_dynamic_shared_size) memset(gpucc_dynamic_shared, 0xFF, gpucc_dynamic_shared_size);
}

[[noreturn]] inline void gpucc_past_dynamic_shared(const char *name, long long from, size_t bytes) {
  fprintf(stderr,
          "gpucc CPU runtime: kernel %s reaches bytes %lld to %lld of dynamic shared memory through %s, but its "
          "launch gave %zu bytes\n",
          gpucc_kernel_name, from, from + (long long)bytes - 1, name, gpucc_dynamic_shared_size);
  fflush(stderr);
  _Exit(42);  // as a race: the kernel is wrong
}

// `extern __shared__ T name[];`
template <class T> struct gpucc_dynamic {
  const char *gpucc_name;
  explicit gpucc_dynamic(const char *name) : gpucc_name(name) {}
  gpucc_ref<T> operator[](long i) const {
    if (i < 0 || (size_t)(i + 1) * sizeof(T) > gpucc_dynamic_shared_size)
      gpucc_past_dynamic_shared(gpucc_name, (long long)i * (long long)sizeof(T), sizeof(T));
    return {reinterpret_cast<T *>(gpucc_dynamic_shared) + i, gpucc_place{gpucc_name, {i}, 1, false}};
  }
  operator T *() const { return reinterpret_cast<T *>(gpucc_dynamic_shared); }
};

// A pointer into shared memory (`float *part = &sdata[n];`, `T *p = sdata + k;`): its
// elements are logged as the array's are, and those in dynamic shared memory are checked
// against the launch's bytes. Pointer arithmetic gives another such pointer; converted to
// a plain `T *` (handed to a function), its accesses are neither logged nor checked.
template <class T> struct gpucc_shared_ptr {
  T *p;
  const char *gpucc_name;
  bool dynamic;  // made from an address in the launch's dynamic shared memory
  gpucc_shared_ptr(T *p, const char *name) : p(p), gpucc_name(name) {
    const unsigned char *at = reinterpret_cast<const unsigned char *>(p);
    dynamic = gpucc_dynamic_shared && at >= gpucc_dynamic_shared && at <= gpucc_dynamic_shared + gpucc_dynamic_shared_size;
  }
  gpucc_shared_ptr(T *p, const char *name, bool dynamic) : p(p), gpucc_name(name), dynamic(dynamic) {}
  gpucc_ref<T> operator[](long i) const {
    long long from = (long long)(reinterpret_cast<const unsigned char *>(p + i) - gpucc_dynamic_shared);
    if (dynamic && (from < 0 || (size_t)from + sizeof(T) > gpucc_dynamic_shared_size))
      gpucc_past_dynamic_shared(gpucc_name, from, sizeof(T));
    return {p + i, gpucc_place{gpucc_name, {i}, 1, false}};
  }
  gpucc_ref<T> operator*() const { return (*this)[0]; }
  gpucc_shared_ptr operator+(long i) const { return {p + i, gpucc_name, dynamic}; }
  gpucc_shared_ptr operator-(long i) const { return {p - i, gpucc_name, dynamic}; }
  gpucc_shared_ptr &operator+=(long i) { p += i; return *this; }
  gpucc_shared_ptr &operator-=(long i) { p -= i; return *this; }
  gpucc_shared_ptr &operator++() { ++p; return *this; }
  gpucc_shared_ptr &operator--() { --p; return *this; }
  gpucc_shared_ptr operator++(int) { gpucc_shared_ptr o = *this; ++p; return o; }
  gpucc_shared_ptr operator--(int) { gpucc_shared_ptr o = *this; --p; return o; }
  operator T *() const { return p; }
};

// An array of type T at `offset` bytes into the dynamic shared memory.
template <class T> struct gpucc_shared_at {
  using E = std::remove_extent_t<T>;
  E *data;
  const char *gpucc_name;
  template <class B> gpucc_shared_at(const char *name, const gpucc_dynamic<B> &, size_t offset) : gpucc_name(name) {
    if (offset + sizeof(T) > gpucc_dynamic_shared_size) gpucc_past_dynamic_shared(name, (long long)offset, sizeof(T));
    if (offset % 16 != 0) {
      fprintf(stderr, "gpucc CPU runtime: kernel %s places %s at byte %zu of dynamic shared memory, not a multiple of 16\n",
              gpucc_kernel_name, name, offset);
      fflush(stderr);
      _Exit(42);
    }
    data = reinterpret_cast<E *>(gpucc_dynamic_shared + offset);
  }
  gpucc_ref<E> operator[](long i) const { return {&data[i], gpucc_place{gpucc_name, {i}, 1, false}}; }
};

// ------------------------------------------------------------------ vector types, wide copies

#define __align__(n) alignas(n)
struct alignas(8) float2 { float x, y; };
struct alignas(16) float4 { float x, y, z, w; };
struct alignas(16) double2 { double x, y; };
struct alignas(8) int2 { int x, y; };
struct alignas(16) int4 { int x, y, z, w; };
struct alignas(8) uint2 { unsigned x, y; };
struct alignas(16) uint4 { unsigned x, y, z, w; };

// A wide copy's load and store (gpucc_load_vector<float4>(&A[i][j]), see the helpers
// of the .cu): each element is logged, and an address that is not aligned to the
// vector's size (a GPU's misaligned-address fault) stops the program.
template <class T> inline void gpucc_check_aligned(const gpucc_ref<T> &r, size_t bytes) {
  if ((size_t)r.p % bytes != 0) {
    fprintf(stderr, "gpucc CPU runtime: misaligned %zu-byte vector access in kernel %s at %s", bytes, gpucc_kernel_name, r.at.name);
    for (int k = 0; k < r.at.rank; k++) fprintf(stderr, "[%ld]", r.at.idx[k]);
    fprintf(stderr, "\n");
    fflush(stderr);
    _Exit(42);  // as a race: the kernel is wrong
  }
}
template <class T> inline gpucc_ref<T> gpucc_lane(const gpucc_ref<T> &r, int k) {
  gpucc_ref<T> e = r;
  e.p += k;
  if (e.at.rank > 0) e.at.idx[e.at.rank - 1] += k;
  return e;
}
template <class V, class T> V gpucc_load_vector(gpucc_addr<T> from) {
  using E = std::remove_const_t<T>;
  static_assert(sizeof(V) % sizeof(E) == 0, "a vector of whole elements");
  gpucc_check_aligned(from.r, sizeof(V));
  V v;
  E *lanes = reinterpret_cast<E *>(&v);
  for (size_t k = 0; k < sizeof(V) / sizeof(E); k++) lanes[k] = gpucc_lane(from.r, (int)k);
  return v;
}
template <class T, class V> void gpucc_store_vector(gpucc_addr<T> to, V value) {
  static_assert(sizeof(V) % sizeof(T) == 0, "a vector of whole elements");
  gpucc_check_aligned(to.r, sizeof(V));
  const T *lanes = reinterpret_cast<const T *>(&value);
  for (size_t k = 0; k < sizeof(V) / sizeof(T); k++) gpucc_lane(to.r, (int)k) = lanes[k];
}

// An asynchronous copy (gpucc_copy_async<V>(&A_shared[..], &A[..]), cp.async on a GPU) is
// made at once here: its elements are logged as the thread's reads and writes, and the
// barrier after its wait (gpucc_wait_copies() of the .cu) orders it as on the GPU.
template <class V, class T, class U> void gpucc_copy_async(gpucc_addr<T> to, gpucc_addr<U> from) {
  gpucc_store_vector(to, gpucc_load_vector<V>(from));
}

// ------------------------------------------------------------------ atomics, intrinsics
//
// A block's threads take turns on one OS thread, so an atomic is a plain read-modify-write;
// on a tracked element it is not logged: atomics do not race.

template <class T> T *gpucc_raw(T *p) { return p; }
template <class T> T *gpucc_raw(gpucc_addr<T> a) { return a.r.p; }
template <class T> T *gpucc_raw(gpucc_array<T> a) { return a.p; }
template <class P, class T> auto atomicAdd(P p, T v) { auto *q = gpucc_raw(p); auto old = *q; *q = old + v; return old; }
template <class P, class T> auto atomicSub(P p, T v) { auto *q = gpucc_raw(p); auto old = *q; *q = old - v; return old; }
template <class P, class T> auto atomicMin(P p, T v) { auto *q = gpucc_raw(p); auto old = *q; *q = old < v ? old : v; return old; }
template <class P, class T> auto atomicMax(P p, T v) { auto *q = gpucc_raw(p); auto old = *q; *q = old > v ? old : v; return old; }
template <class P, class T> auto atomicExch(P p, T v) { auto *q = gpucc_raw(p); auto old = *q; *q = v; return old; }
template <class P, class T> auto atomicAnd(P p, T v) { auto *q = gpucc_raw(p); auto old = *q; *q = old & v; return old; }
template <class P, class T> auto atomicOr(P p, T v) { auto *q = gpucc_raw(p); auto old = *q; *q = old | v; return old; }
template <class P, class T> auto atomicXor(P p, T v) { auto *q = gpucc_raw(p); auto old = *q; *q = old ^ v; return old; }
// atomicInc and atomicDec wrap at `limit`, as CUDA's do.
template <class P> unsigned atomicInc(P p, unsigned limit) {
  auto *q = gpucc_raw(p);
  unsigned old = *q;
  *q = old >= limit ? 0 : old + 1;
  return old;
}
template <class P> unsigned atomicDec(P p, unsigned limit) {
  auto *q = gpucc_raw(p);
  unsigned old = *q;
  *q = (old == 0 || old > limit) ? limit : old - 1;
  return old;
}
template <class P, class T> auto atomicCAS(P p, T compare, T v) {
  auto *q = gpucc_raw(p);
  auto old = *q;
  if (old == compare) *q = v;
  return old;
}
inline float __int_as_float(int x) { float f; memcpy(&f, &x, sizeof f); return f; }
inline int __float_as_int(float f) { int x; memcpy(&x, &f, sizeof x); return x; }
inline double __longlong_as_double(long long x) { double d; memcpy(&d, &x, sizeof d); return d; }
inline long long __double_as_longlong(double d) { long long x; memcpy(&x, &d, sizeof x); return x; }
inline void __threadfence() {}
inline void __threadfence_block() {}

inline float __expf(float x) { return expf(x); }
inline float __logf(float x) { return logf(x); }
inline float __sinf(float x) { return sinf(x); }
inline float __cosf(float x) { return cosf(x); }
inline float __powf(float x, float y) { return powf(x, y); }
inline float __fdividef(float x, float y) { return x / y; }
inline float __saturatef(float x) { return x < 0.0f ? 0.0f : (x > 1.0f ? 1.0f : x); }
inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
inline double rsqrt(double x) { return 1.0 / sqrt(x); }
inline void __sincosf(float x, float *s, float *c) { *s = sinf(x); *c = cosf(x); }
inline float __fmaf_rn(float a, float b, float c) { return fmaf(a, b, c); }
inline double __fma_rn(double a, double b, double c) { return fma(a, b, c); }

// ------------------------------------------------------------------ fibers
//
// A fiber runs until it waits: at __syncthreads() for every thread of its block, or at a
// warp shuffle for the lanes its mask names. The scheduler runs every thread that can run,
// then lets through the warps whose shuffles are complete (each lane gets the value of its
// source lane), and when every thread waits at the barrier, lets the block through it.
// A shuffle is not a memory barrier: only __syncthreads() starts a new interval for the
// race detector.

enum gpucc_wait { gpucc_running_now, gpucc_at_barrier, gpucc_at_shuffle };

struct gpucc_fiber {
  ucontext_t context;
  char *stack = nullptr;
  bool done = false;
  gpucc_wait wait = gpucc_running_now;
  dim3 index;
  // The pending shuffle: its kind, mask, source offset or lane, segment width, the
  // value given and taken.
  int kind = 0;
  unsigned mask = 0, delta = 0;
  int width = 32;
  unsigned char given[16], taken[16];
};

inline ucontext_t gpucc_scheduler;
inline gpucc_fiber *gpucc_running = nullptr;
// The kernel call the fibers run: a function and its context (the launch's lambda).
inline void (*gpucc_body)(void *) = nullptr;
inline void *gpucc_body_context = nullptr;

inline void gpucc_fiber_main() {
  gpucc_body(gpucc_body_context);
  gpucc_running->done = true;
}

inline void __syncthreads() {
  if (!gpucc_running) {
    fprintf(stderr, "gpucc CPU runtime: __syncthreads() in a kernel launched without barriers\n");
    abort();
  }
  gpucc_running->wait = gpucc_at_barrier;
  swapcontext(&gpucc_running->context, &gpucc_scheduler);
}

// The shuffles, once every lane of `mask` has arrived. Lane L of a segment of `width`
// lanes gets `var` of: __shfl_down_sync, lane L + delta (its own past the segment's end);
// __shfl_up_sync, lane L - delta (its own before the segment's start); __shfl_xor_sync,
// lane L ^ delta (its own past the segment's end); __shfl_sync, lane `delta` of the segment.
enum { gpucc_shfl_down, gpucc_shfl_up, gpucc_shfl_xor, gpucc_shfl_idx };
template <class T> T gpucc_shuffle(int kind, const char *name, unsigned mask, T var, unsigned delta, int width) {
  static_assert(sizeof(T) <= 16, "a shuffled value has at most 16 bytes");
  gpucc_fiber *f = gpucc_running;
  if (!f) {
    fprintf(stderr, "gpucc CPU runtime: %s() in a kernel launched without barriers\n", name);
    abort();
  }
  memcpy(f->given, &var, sizeof(T));
  f->kind = kind;
  f->mask = mask;
  f->delta = delta;
  f->width = width;
  f->wait = gpucc_at_shuffle;
  swapcontext(&f->context, &gpucc_scheduler);
  T out;
  memcpy(&out, f->taken, sizeof(T));
  return out;
}
template <class T> T __shfl_down_sync(unsigned mask, T var, unsigned delta, int width = 32) {
  return gpucc_shuffle(gpucc_shfl_down, "__shfl_down_sync", mask, var, delta, width);
}
template <class T> T __shfl_up_sync(unsigned mask, T var, unsigned delta, int width = 32) {
  return gpucc_shuffle(gpucc_shfl_up, "__shfl_up_sync", mask, var, delta, width);
}
template <class T> T __shfl_xor_sync(unsigned mask, T var, int lane_mask, int width = 32) {
  return gpucc_shuffle(gpucc_shfl_xor, "__shfl_xor_sync", mask, var, unsigned(lane_mask), width);
}
template <class T> T __shfl_sync(unsigned mask, T var, int src_lane, int width = 32) {
  return gpucc_shuffle(gpucc_shfl_idx, "__shfl_sync", mask, var, unsigned(src_lane), width);
}

[[noreturn]] inline void gpucc_shuffle_error(int warp, int lane, const char *what) {
  fprintf(stderr, "gpucc CPU runtime: block (%u, %u, %u), warp %d: lane %d %s\n", blockIdx.x, blockIdx.y, blockIdx.z,
          warp, lane, what);
  abort();
}

// Lets through the lanes of each warp whose shuffle every lane of its mask has reached;
// reports lanes of a mask that wait elsewhere, have ended or do not exist.
inline void gpucc_release_shuffles(gpucc_fiber *fibers, size_t n) {
  for (size_t first = 0; first < n; first += 32) {
    int warp = int(first / 32);
    bool waiting = false;
    for (size_t t = first; t < first + 32 && t < n; t++) waiting |= fibers[t].wait == gpucc_at_shuffle;
    if (!waiting) continue;
    for (size_t t = first; t < first + 32 && t < n; t++) {
      gpucc_fiber &f = fibers[t];
      if (f.wait != gpucc_at_shuffle) continue;
      for (int lane = 0; lane < 32; lane++) {
        if (!(f.mask >> lane & 1u)) continue;
        size_t other = first + lane;
        if (other >= n) gpucc_shuffle_error(warp, lane, "is named in a shuffle's mask but does not exist");
        if (fibers[other].done) gpucc_shuffle_error(warp, lane, "is named in a shuffle's mask but has ended");
        if (fibers[other].wait != gpucc_at_shuffle)
          gpucc_shuffle_error(warp, lane, "is named in a shuffle's mask but waits at __syncthreads()");
        if (fibers[other].mask != f.mask) gpucc_shuffle_error(warp, lane, "meets a shuffle with another mask");
      }
    }
    for (size_t t = first; t < first + 32 && t < n; t++) {
      gpucc_fiber &f = fibers[t];
      if (f.wait != gpucc_at_shuffle) continue;
      int lane = int(t - first);
      int segment = lane / f.width * f.width;
      int source = lane;
      switch (f.kind) {
        case gpucc_shfl_down: source = lane + int(f.delta); break;
        case gpucc_shfl_up: source = lane - int(f.delta); break;
        case gpucc_shfl_xor: source = lane ^ int(f.delta); break;
        default: source = segment + int(f.delta) % f.width; break;
      }
      if (source >= segment + f.width || source < segment) source = lane;
      if (!(f.mask >> source & 1u))
        gpucc_shuffle_error(warp, lane, "reads a lane that is not in the shuffle's mask");
      memcpy(f.taken, fibers[first + source].given, sizeof f.taken);
    }
    for (size_t t = first; t < first + 32 && t < n; t++)
      if (fibers[t].wait == gpucc_at_shuffle) fibers[t].wait = gpucc_running_now;
  }
}

// Runs one block: all threads as fibers, from barrier to barrier.
inline void gpucc_run_fibers(gpucc_fiber *fibers, size_t n) {
  // A fully unrolled register-tiled kernel compiled at -O0 (large files are) gives each
  // of its thousand statements' temporaries a slot of its own: 256 KB overflowed for an
  // 8 x 8 tile with 16 k steps. Pages never touched cost nothing.
  const size_t stack_size = 4 * 1024 * 1024;
  for (size_t t = 0; t < n; t++) {
    gpucc_fiber &f = fibers[t];
    f.done = false;
    f.wait = gpucc_running_now;
    if (!f.stack && !(f.stack = (char *)malloc(stack_size))) {
      fprintf(stderr, "gpucc CPU runtime: out of memory for the stacks of a block's threads\n");
      abort();
    }
    getcontext(&f.context);
    f.context.uc_stack.ss_sp = f.stack;
    f.context.uc_stack.ss_size = stack_size;
    f.context.uc_link = &gpucc_scheduler;
    makecontext(&f.context, gpucc_fiber_main, 0);
  }
  gpucc_block_cells.clear();
  for (;;) {
    for (size_t t = 0; t < n; t++) {
      gpucc_fiber &f = fibers[t];
      if (f.done || f.wait != gpucc_running_now) continue;
      threadIdx = f.index;
      gpucc_thread_id = int(t);
      gpucc_running = &f;
      swapcontext(&gpucc_scheduler, &f.context);
      gpucc_running = nullptr;
    }
    size_t finished = 0, shuffling = 0;
    for (size_t t = 0; t < n; t++) {
      finished += fibers[t].done;
      shuffling += !fibers[t].done && fibers[t].wait == gpucc_at_shuffle;
    }
    if (finished == n) break;
    if (shuffling != 0) {
      gpucc_release_shuffles(fibers, n);
      continue;
    }
    if (finished != 0) {
      fprintf(stderr, "gpucc CPU runtime: some threads of block (%u, %u, %u) ended while others wait at __syncthreads()\n", blockIdx.x, blockIdx.y, blockIdx.z);
      abort();
    }
    gpucc_block_cells.clear();  // a new interval between barriers
    for (size_t t = 0; t < n; t++) fibers[t].wait = gpucc_running_now;
  }
}

// The fibers of a block, kept from launch to launch (with their stacks).
inline gpucc_fiber *gpucc_fibers = nullptr;
inline size_t gpucc_fiber_count = 0;

inline gpucc_fiber *gpucc_block_fibers(size_t n) {
  if (n > gpucc_fiber_count) {
    gpucc_fiber *more = new gpucc_fiber[n];
    for (size_t t = 0; t < gpucc_fiber_count; t++) more[t].stack = gpucc_fibers[t].stack;
    delete[] gpucc_fibers;
    gpucc_fibers = more;
    gpucc_fiber_count = n;
  }
  return gpucc_fibers;
}

// Whether a launch's configuration is one CUDA accepts (a GPU refuses the others, and the
// error is the next cudaGetLastError()'s).
inline bool gpucc_valid_launch(dim3 grid, dim3 block) {
  unsigned long long threads = (unsigned long long)block.x * block.y * block.z;
  return grid.x >= 1 && grid.y >= 1 && grid.z >= 1 && grid.x <= 2147483647u && grid.y <= 65535 &&
         grid.z <= 65535 && block.x >= 1 && block.y >= 1 && block.z >= 1 && block.x <= 1024 && block.y <= 1024 &&
         block.z <= 64 && threads <= 1024;
}

// `Barriers` says whether the kernel calls __syncthreads(): gpucc reads it off the kernel's
// text when it rewrites the launch. Without barriers the threads run as plain calls.
template <bool Barriers, class Kernel, class... Args>
void gpucc_launch(const char *name, Kernel kernel, dim3 grid, dim3 block, size_t shared, Args... args) {
  if (shared > gpucc_dynamic_shared_allowed(kernel)) {
    fprintf(stderr,
            "gpucc CPU runtime: the launch of %s asks for %zu bytes of dynamic shared memory, which a GPU refuses: over "
            "%zu bytes a launch needs cudaFuncSetAttribute(%s, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes) "
            "first, and no device gives a block more than %zu\n",
            name, shared, gpucc_default_dynamic_shared, name, gpucc_max_dynamic_shared);
    gpucc_last_error = cudaErrorInvalidValue;
    return;
  }
  if (!gpucc_valid_launch(grid, block)) {
    fprintf(stderr,
            "gpucc CPU runtime: the launch of %s with grid (%u, %u, %u) and blocks of (%u, %u, %u) threads is one a "
            "GPU refuses (at most 1024 threads a block, 1024 x 1024 x 64; grid y and z at most 65535)\n",
            name, grid.x, grid.y, grid.z, block.x, block.y, block.z);
    gpucc_last_error = cudaErrorInvalidConfiguration;
    return;
  }
  gridDim = grid;
  blockDim = block;
  gpucc_kernel_name = name;
  gpucc_dynamic_shared_for(shared);
  gpucc_launch_cells.clear();
  auto call = [&] { kernel(args...); };
  gpucc_body = [](void *context) { (*static_cast<decltype(call) *>(context))(); };
  gpucc_body_context = &call;
  size_t n = (size_t)block.x * block.y * block.z;
  gpucc_fiber *fibers = gpucc_block_fibers(n);
  for (unsigned t = 0; t < n; t++)
    fibers[t].index = dim3(t % block.x, t / block.x % block.y, t / (block.x * block.y));
  for (unsigned bz = 0; bz < grid.z; bz++)
    for (unsigned by = 0; by < grid.y; by++)
      for (unsigned bx = 0; bx < grid.x; bx++) {
        blockIdx = dim3(bx, by, bz);
        gpucc_block_id = int(bx + grid.x * (by + grid.y * bz));
        gpucc_block_cells.clear();
        gpucc_poison_shared();
        if (Barriers) {
          gpucc_run_fibers(fibers, n);
        } else {
          for (size_t t = 0; t < n; t++) {
            threadIdx = fibers[t].index;
            gpucc_thread_id = int(t);
            call();
          }
        }
      }
}

#endif
