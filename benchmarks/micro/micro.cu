// gpucc's microbenchmarks: the latency and the gap (per SM) of each resource the emulator
// models (src/emulator, seed 000 §3: a resource is a latency L and a gap G), measured on
// the GPU this runs on, printed as JSON on stdout.
//
// latency: cycles (clock64) per step of a chain of dependent operations in one thread:
//   arithmetic chains of 256 (integer: 512) unrolled PTX instructions (asm volatile, so nvcc can
//   neither fold nor reorder them), pointer chases for memory (shared memory; L1; L2 with
//   ld.global.cg over 4 MB; DRAM with ld.global.cg over 1 GB, random order).
// gap: cycles per warp instruction per SM with every SM full (one block of 1024 threads
//   each, 8 independent chains per thread): the block's clock64 span / its warp
//   instructions; the median over the SMs. Memory gaps are per 32-byte sector, from the
//   bandwidth of a streaming read (DRAM: 2 GB; L2: 16 MB read 64 times) and the
//   measured clock.
// Also: the SM clock under load (clock64 cycles / CUDA-event time), the launch overhead
// (an empty kernel: one launch timed alone, and 2000 launches back to back).
//
// Build and run: benchmarks/micro/run.sh (nvcc -O3 -arch=sm_90).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include <numeric>
#include <random>
#include <vector>

#define CHECK(x)                                                                       \
  do {                                                                                 \
    cudaError_t e_ = (x);                                                              \
    if (e_ != cudaSuccess) {                                                           \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      exit(1);                                                                         \
    }                                                                                  \
  } while (0)

#define REP8(x) x x x x x x x x
#define REP32(x) REP8(x) REP8(x) REP8(x) REP8(x)
#define REP256(x) REP32(x) REP32(x) REP32(x) REP32(x) REP32(x) REP32(x) REP32(x) REP32(x)

// ---------------------------------------------------------------------------------
// Latency: one thread, a dependent chain of 256 instructions between two clock64 reads.

__global__ void lat_fp32(float *out, long long *cycles, float a, float b) {
  float x = out[0];
  long long t0 = clock64();
  REP256(asm volatile("fma.rn.f32 %0, %0, %1, %2;" : "+f"(x) : "f"(a), "f"(b));)
  long long t1 = clock64();
  out[0] = x;
  cycles[0] = t1 - t0;
}

__global__ void lat_fp64(double *out, long long *cycles, double a, double b) {
  double x = out[0];
  long long t0 = clock64();
  REP256(asm volatile("fma.rn.f64 %0, %0, %1, %2;" : "+d"(x) : "d"(a), "d"(b));)
  long long t1 = clock64();
  out[0] = x;
  cycles[0] = t1 - t0;
}

// Adds and xors in turn: ptxas merges chains of adds alone into fewer instructions.
__global__ void lat_int(int *out, long long *cycles, int a) {
  int x = out[0];
  long long t0 = clock64();
  REP32(REP8(asm volatile("add.s32 %0, %0, %1;" : "+r"(x) : "r"(a));
             asm volatile("xor.b32 %0, %0, %1;" : "+r"(x) : "r"(a + 5));))
  long long t1 = clock64();
  out[0] = x;
  cycles[0] = t1 - t0;
}

__global__ void lat_sfu(float *out, long long *cycles) {
  float x = out[0];
  long long t0 = clock64();
  REP256(asm volatile("rsqrt.approx.ftz.f32 %0, %0;" : "+f"(x));)
  long long t1 = clock64();
  out[0] = x;
  cycles[0] = t1 - t0;
}

// A pointer chase: each element holds the address of the next, so a step is one load
// and nothing else. `warm` steps untimed, then `steps` timed, continuing the walk (a small
// cycle is walked again; a large one reaches lines not yet cached), 32 per loop trip.
#define CHASE_KERNEL(NAME, LOAD)                                                          \
  __global__ void NAME(const unsigned long long *start, long warm, long steps,           \
                       unsigned long long *out, long long *cycles) {                      \
    unsigned long long p = (unsigned long long)start;                                     \
    for (long s = 0; s < warm; s += 32) {                                                 \
      REP32(asm volatile(LOAD " %0, [%0];" : "+l"(p));)                                   \
    }                                                                                     \
    long long t0 = clock64();                                                             \
    for (long s = 0; s < steps; s += 32) {                                                \
      REP32(asm volatile(LOAD " %0, [%0];" : "+l"(p));)                                   \
    }                                                                                     \
    long long t1 = clock64();                                                             \
    out[0] = p;                                                                           \
    cycles[0] = t1 - t0;                                                                  \
  }
CHASE_KERNEL(lat_chase_global_cg, "ld.global.cg.u64")
CHASE_KERNEL(lat_chase_global_ca, "ld.global.ca.u64")

__global__ void lat_chase_shared(unsigned *out, long long *cycles) {
  __shared__ unsigned next[1024];
  for (int i = 0; i < 1024; i++)  // one cycle: 97 is odd
    next[i] = (unsigned)__cvta_generic_to_shared(&next[(i * 97 + 13) % 1024]);
  unsigned p = (unsigned)__cvta_generic_to_shared(&next[0]);
  REP32(asm volatile("ld.shared.u32 %0, [%0];" : "+r"(p));)
  long long t0 = clock64();
  REP256(asm volatile("ld.shared.u32 %0, [%0];" : "+r"(p));)
  long long t1 = clock64();
  out[0] = p;
  cycles[0] = t1 - t0;
}

// One block of 128 threads: cycles per __syncthreads() in a loop of them.
__global__ void lat_barrier(long long *cycles, int n) {
  __syncthreads();
  long long t0 = clock64();
  for (int i = 0; i < n; i++) __syncthreads();
  long long t1 = clock64();
  if (threadIdx.x == 0) cycles[0] = t1 - t0;
}

// ---------------------------------------------------------------------------------
// Gap: every SM full; each block records its clock64 span.

#define SPAN_BEGIN                    \
  __syncthreads();                    \
  long long t0 = clock64();
#define SPAN_END                                                  \
  __syncthreads();                                                \
  long long t1 = clock64();                                       \
  if (threadIdx.x == 0) spans[blockIdx.x] = t1 - t0;

__global__ void gap_fp32(float *out, long long *spans, int n, float a, float b) {
  float x0 = threadIdx.x, x1 = x0 + 1, x2 = x0 + 2, x3 = x0 + 3, x4 = x0 + 4, x5 = x0 + 5,
        x6 = x0 + 6, x7 = x0 + 7;
  SPAN_BEGIN
  for (int i = 0; i < n; i++) {
    REP8(asm volatile(
        "fma.rn.f32 %0, %0, %8, %9;\n\tfma.rn.f32 %1, %1, %8, %9;\n\t"
        "fma.rn.f32 %2, %2, %8, %9;\n\tfma.rn.f32 %3, %3, %8, %9;\n\t"
        "fma.rn.f32 %4, %4, %8, %9;\n\tfma.rn.f32 %5, %5, %8, %9;\n\t"
        "fma.rn.f32 %6, %6, %8, %9;\n\tfma.rn.f32 %7, %7, %8, %9;"
        : "+f"(x0), "+f"(x1), "+f"(x2), "+f"(x3), "+f"(x4), "+f"(x5), "+f"(x6), "+f"(x7)
        : "f"(a), "f"(b));)
  }
  SPAN_END
  out[blockIdx.x * blockDim.x + threadIdx.x] = x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7;
}

__global__ void gap_fp64(double *out, long long *spans, int n, double a, double b) {
  double x0 = threadIdx.x, x1 = x0 + 1, x2 = x0 + 2, x3 = x0 + 3, x4 = x0 + 4, x5 = x0 + 5,
         x6 = x0 + 6, x7 = x0 + 7;
  SPAN_BEGIN
  for (int i = 0; i < n; i++) {
    REP8(asm volatile(
        "fma.rn.f64 %0, %0, %8, %9;\n\tfma.rn.f64 %1, %1, %8, %9;\n\t"
        "fma.rn.f64 %2, %2, %8, %9;\n\tfma.rn.f64 %3, %3, %8, %9;\n\t"
        "fma.rn.f64 %4, %4, %8, %9;\n\tfma.rn.f64 %5, %5, %8, %9;\n\t"
        "fma.rn.f64 %6, %6, %8, %9;\n\tfma.rn.f64 %7, %7, %8, %9;"
        : "+d"(x0), "+d"(x1), "+d"(x2), "+d"(x3), "+d"(x4), "+d"(x5), "+d"(x6), "+d"(x7)
        : "d"(a), "d"(b));)
  }
  SPAN_END
  out[blockIdx.x * blockDim.x + threadIdx.x] = x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7;
}

__global__ void gap_int(int *out, long long *spans, int n, int a) {
  int x0 = threadIdx.x, x1 = x0 + 1, x2 = x0 + 2, x3 = x0 + 3, x4 = x0 + 4, x5 = x0 + 5,
      x6 = x0 + 6, x7 = x0 + 7;
  SPAN_BEGIN
  for (int i = 0; i < n; i++) {
    REP8(asm volatile(
        "add.s32 %0, %0, %8;\n\tadd.s32 %1, %1, %8;\n\tadd.s32 %2, %2, %8;\n\t"
        "add.s32 %3, %3, %8;\n\tadd.s32 %4, %4, %8;\n\tadd.s32 %5, %5, %8;\n\t"
        "add.s32 %6, %6, %8;\n\tadd.s32 %7, %7, %8;\n\t"
        "xor.b32 %0, %0, %9;\n\txor.b32 %1, %1, %9;\n\txor.b32 %2, %2, %9;\n\t"
        "xor.b32 %3, %3, %9;\n\txor.b32 %4, %4, %9;\n\txor.b32 %5, %5, %9;\n\t"
        "xor.b32 %6, %6, %9;\n\txor.b32 %7, %7, %9;"
        : "+r"(x0), "+r"(x1), "+r"(x2), "+r"(x3), "+r"(x4), "+r"(x5), "+r"(x6), "+r"(x7)
        : "r"(a), "r"(a + 5));)
  }
  SPAN_END
  out[blockIdx.x * blockDim.x + threadIdx.x] = x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7;
}

__global__ void gap_sfu(float *out, long long *spans, int n) {
  float x0 = threadIdx.x + 1, x1 = x0 + 1, x2 = x0 + 2, x3 = x0 + 3, x4 = x0 + 4, x5 = x0 + 5,
        x6 = x0 + 6, x7 = x0 + 7;
  SPAN_BEGIN
  for (int i = 0; i < n; i++) {
    REP8(asm volatile(
        "rsqrt.approx.ftz.f32 %0, %0;\n\trsqrt.approx.ftz.f32 %1, %1;\n\t"
        "rsqrt.approx.ftz.f32 %2, %2;\n\trsqrt.approx.ftz.f32 %3, %3;\n\t"
        "rsqrt.approx.ftz.f32 %4, %4;\n\trsqrt.approx.ftz.f32 %5, %5;\n\t"
        "rsqrt.approx.ftz.f32 %6, %6;\n\trsqrt.approx.ftz.f32 %7, %7;"
        : "+f"(x0), "+f"(x1), "+f"(x2), "+f"(x3), "+f"(x4), "+f"(x5), "+f"(x6), "+f"(x7));)
  }
  SPAN_END
  out[blockIdx.x * blockDim.x + threadIdx.x] = x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7;
}

// Shared-memory loads, conflict-free (lane i reads word i of a row): 8 per trip.
__global__ void gap_shared(unsigned *out, long long *spans, int n) {
  __shared__ unsigned s[8][1024];
  for (int r = 0; r < 8; r++) s[r][threadIdx.x] = threadIdx.x * r;
  unsigned base = (unsigned)__cvta_generic_to_shared(&s[0][threadIdx.x]);
  unsigned x0 = 0, x1 = 0, x2 = 0, x3 = 0, x4 = 0, x5 = 0, x6 = 0, x7 = 0;
  SPAN_BEGIN
  for (int i = 0; i < n; i++) {
    REP8(asm volatile(
        "ld.volatile.shared.u32 %0, [%8];\n\tld.volatile.shared.u32 %1, [%8+4096];\n\t"
        "ld.volatile.shared.u32 %2, [%8+8192];\n\tld.volatile.shared.u32 %3, [%8+12288];\n\t"
        "ld.volatile.shared.u32 %4, [%8+16384];\n\tld.volatile.shared.u32 %5, [%8+20480];\n\t"
        "ld.volatile.shared.u32 %6, [%8+24576];\n\tld.volatile.shared.u32 %7, [%8+28672];"
        : "=r"(x0), "=r"(x1), "=r"(x2), "=r"(x3), "=r"(x4), "=r"(x5), "=r"(x6), "=r"(x7)
        : "r"(base));)
  }
  SPAN_END
  out[blockIdx.x * blockDim.x + threadIdx.x] = x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7;
}

// Global loads that hit L1 (read-only path; a warp reads one 128-byte line of a 16 KB
// window that stays in L1), 8 per trip, summed so that none is dead: the load/store
// units' issue rate, an upper bound (each load comes with about 1.5 integer operations).
__global__ void gap_lsu(const unsigned *in, unsigned *out, long long *spans, int n) {
  const unsigned *p = in + (threadIdx.x % 32);
  unsigned x0 = 0, x1 = 0, x2 = 0, x3 = 0;
  SPAN_BEGIN
  for (int i = 0; i < n; i++) {
    const unsigned *q = p + ((i * 256) & 3840);  // 16 windows of 1 KB, 8 lines each
    x0 += __ldg(q);
    x1 += __ldg(q + 32);
    x2 += __ldg(q + 64);
    x3 += __ldg(q + 96);
    x0 += __ldg(q + 128);
    x1 += __ldg(q + 160);
    x2 += __ldg(q + 192);
    x3 += __ldg(q + 224);
  }
  SPAN_END
  out[blockIdx.x * blockDim.x + threadIdx.x] = x0 + x1 + x2 + x3;
}

__global__ void gap_barrier(long long *spans, int n) {
  SPAN_BEGIN
  for (int i = 0; i < n; i++) __syncthreads();
  SPAN_END
}

// A streaming read of `n` float4s (grid-stride), summed so it is not dead code.
__global__ void stream_read(const float4 *in, long n, int times, float *out) {
  float s = 0;
  for (int t = 0; t < times; t++)
    for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n;
         i += (long)gridDim.x * blockDim.x) {
      float4 v = __ldcg(in + i);
      s += v.x + v.y + v.z + v.w;
    }
  if (s == 12345.0f) out[0] = s;
}

// clock64 cycles over a spin of `n` cycles, for the clock rate.
__global__ void spin(long long n, long long *cycles) {
  long long t0 = clock64(), t1 = t0;
  while (t1 - t0 < n) t1 = clock64();
  if (threadIdx.x == 0 && blockIdx.x == 0) cycles[0] = t1 - t0;
}

__global__ void empty() {}

// ---------------------------------------------------------------------------------

static cudaEvent_t ev0, ev1;
static float elapsed_ms(void (*launch)()) {
  CHECK(cudaEventRecord(ev0));
  launch();
  CHECK(cudaEventRecord(ev1));
  CHECK(cudaEventSynchronize(ev1));
  CHECK(cudaGetLastError());
  float ms = 0;
  CHECK(cudaEventElapsedTime(&ms, ev0, ev1));
  return ms;
}

static double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static long long *d_cycles;
static long long host_cycles() {
  long long c = 0;
  CHECK(cudaMemcpy(&c, d_cycles, sizeof c, cudaMemcpyDeviceToHost));
  return c;
}

// A random cyclic chase over `bytes`, one step per `stride` bytes: each step holds the
// device address of the next.
static unsigned long long *make_chase(size_t bytes, size_t stride, unsigned seed) {
  size_t words = bytes / 8, step = stride / 8, n = words / step;
  unsigned long long *d;
  CHECK(cudaMalloc(&d, bytes));
  std::vector<size_t> perm(n);
  std::iota(perm.begin(), perm.end(), 0);
  std::mt19937 rng(seed);
  std::shuffle(perm.begin() + 1, perm.end(), rng);
  std::vector<unsigned long long> next(words, 0);
  for (size_t i = 0; i < n; i++)
    next[perm[i] * step] = (unsigned long long)(d + perm[(i + 1) % n] * step);
  CHECK(cudaMemcpy(d, next.data(), bytes, cudaMemcpyHostToDevice));
  return d;
}

static int sms;
static double loaded_clock_mhz;
static long long *d_spans;
static const int THREADS = 1024;

// The median over the SMs of (span / warp instructions per block).
static double gap_from_spans(double warp_instructions_per_block) {
  std::vector<long long> spans(sms);
  CHECK(cudaMemcpy(spans.data(), d_spans, sms * sizeof(long long), cudaMemcpyDeviceToHost));
  std::vector<double> g;
  for (long long s : spans) g.push_back(s / warp_instructions_per_block);
  return median(g);
}

int main() {
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  int driver = 0, runtime = 0;
  CHECK(cudaDriverGetVersion(&driver));
  CHECK(cudaRuntimeGetVersion(&runtime));
  sms = prop.multiProcessorCount;
  CHECK(cudaEventCreate(&ev0));
  CHECK(cudaEventCreate(&ev1));
  CHECK(cudaMalloc(&d_cycles, sizeof(long long)));
  CHECK(cudaMalloc(&d_spans, sms * sizeof(long long)));
  float *d_f;
  CHECK(cudaMalloc(&d_f, sizeof(double) * sms * THREADS));
  CHECK(cudaMemset(d_f, 0, sizeof(double) * sms * THREADS));
  printf("{\n");
  printf("  \"device\": \"%s\",\n  \"sms\": %d,\n  \"l2_bytes\": %d,\n", prop.name, sms,
         prop.l2CacheSize);
  printf("  \"driver_cuda\": \"%d.%d\",\n  \"runtime_cuda\": \"%d.%d\",\n", driver / 1000,
         driver % 1000 / 10, runtime / 1000, runtime % 1000 / 10);

  // The clock: one block spinning for 2e8 cycles, timed with events (median of 5).
  static long long spin_cycles = 200000000LL;
  std::vector<double> mhz;
  for (int r = 0; r < 5; r++) {
    float ms = elapsed_ms([] { spin<<<sms, 32>>>(spin_cycles, d_cycles); });
    mhz.push_back(host_cycles() / (ms * 1e3));
  }
  double clock_mhz = median(mhz);
  printf("  \"sm_clock_mhz\": %.1f,\n", clock_mhz);

  // Latencies (median of 5 runs each).
  auto lat = [](void (*launch)(), double steps) {
    std::vector<double> v;
    for (int r = 0; r < 5; r++) {
      launch();
      CHECK(cudaDeviceSynchronize());
      CHECK(cudaGetLastError());
      v.push_back(host_cycles() / steps);
    }
    return median(v);
  };
  static float *f = d_f;
  printf("  \"latency\": {\n");
  printf("    \"fp32\": %.2f,\n", lat([] { lat_fp32<<<1, 1>>>(f, d_cycles, 1.0001f, 0.5f); }, 256));
  printf("    \"fp64\": %.2f,\n",
         lat([] { lat_fp64<<<1, 1>>>((double *)f, d_cycles, 1.0001, 0.5); }, 256));
  printf("    \"int\": %.2f,\n", lat([] { lat_int<<<1, 1>>>((int *)f, d_cycles, 3); }, 512));
  printf("    \"sfu\": %.2f,\n", lat([] { lat_sfu<<<1, 1>>>(f, d_cycles); }, 256));
  printf("    \"shared\": %.2f,\n", lat([] { lat_chase_shared<<<1, 1>>>((unsigned *)f, d_cycles); }, 256));
  static unsigned long long *l1 = make_chase(16 << 10, 128, 1);
  static unsigned long long *l2 = make_chase(4 << 20, 128, 2);
  static unsigned long long *dram = make_chase(1ul << 30, 256, 3);
  // L1: a 128-line cycle walked once to warm, then 4096 steps; L2: the 32768-line cycle
  // once, then once more; DRAM: 4096 steps, then 4096 more of a 4M-line cycle.
  printf("    \"l1\": %.2f,\n",
         lat([] { lat_chase_global_ca<<<1, 1>>>(l1, 128, 4096, (unsigned long long *)f, d_cycles); }, 4096));
  printf("    \"l2\": %.2f,\n",
         lat([] { lat_chase_global_cg<<<1, 1>>>(l2, 32768, 32768, (unsigned long long *)f, d_cycles); },
             32768));
  printf("    \"dram\": %.2f,\n",
         lat([] { lat_chase_global_cg<<<1, 1>>>(dram, 4096, 4096, (unsigned long long *)f, d_cycles); },
             4096));
  static int barriers = 10000;
  printf("    \"barrier\": %.2f\n  },\n",
         lat([] { lat_barrier<<<1, 128>>>(d_cycles, barriers); }, barriers));

  // Gaps: every SM holds one block of 1024 threads (32 warps).
  static int n = 4096;
  const double warps = THREADS / 32;
  auto gap = [&](void (*launch)(), double per_thread_trip) {
    launch();  // warm-up
    CHECK(cudaDeviceSynchronize());
    std::vector<double> v;
    for (int r = 0; r < 5; r++) {
      launch();
      CHECK(cudaDeviceSynchronize());
      CHECK(cudaGetLastError());
      v.push_back(gap_from_spans(warps * per_thread_trip * n));
    }
    return median(v);
  };
  static unsigned *lsu_line = (unsigned *)l1;
  printf("  \"gap\": {\n");
  printf("    \"fp32\": %.4f,\n", gap([] { gap_fp32<<<sms, THREADS>>>(f, d_spans, n, 1.0001f, 0.5f); }, 64));
  printf("    \"fp64\": %.4f,\n",
         gap([] { gap_fp64<<<sms, THREADS>>>((double *)f, d_spans, n, 1.0001, 0.5); }, 64));
  printf("    \"int\": %.4f,\n", gap([] { gap_int<<<sms, THREADS>>>((int *)f, d_spans, n, 3); }, 128));
  printf("    \"sfu\": %.4f,\n", gap([] { gap_sfu<<<sms, THREADS>>>(f, d_spans, n); }, 64));
  printf("    \"shared\": %.4f,\n",
         gap([] { gap_shared<<<sms, THREADS>>>((unsigned *)f, d_spans, n); }, 64));
  printf("    \"lsu\": %.4f,\n",
         gap([] { gap_lsu<<<sms, THREADS>>>(lsu_line, (unsigned *)f, d_spans, n); }, 8));
  printf("    \"barrier\": %.4f,\n", gap([] { gap_barrier<<<sms, THREADS>>>(d_spans, n); }, 1));
  {
    // The clock with every SM busy: the FP32 kernel's longest span / its event time.
    float ms = elapsed_ms([] { gap_fp32<<<sms, THREADS>>>(f, d_spans, n, 1.0001f, 0.5f); });
    std::vector<long long> spans(sms);
    CHECK(cudaMemcpy(spans.data(), d_spans, sms * sizeof(long long), cudaMemcpyDeviceToHost));
    loaded_clock_mhz = *std::max_element(spans.begin(), spans.end()) / (ms * 1e3);
  }

  // Bandwidths: DRAM (2 GB read once), L2 (16 MB read 64 times); 4 blocks of 1024 per SM.
  static float4 *big;
  static long big_n = (2ul << 30) / 16, l2_n = (16ul << 20) / 16;
  CHECK(cudaMalloc(&big, big_n * 16));
  CHECK(cudaMemset(big, 0, big_n * 16));
  auto bandwidth = [&](void (*launch)(), double bytes) {
    launch();
    std::vector<double> v;
    for (int r = 0; r < 7; r++) v.push_back(bytes / (elapsed_ms(launch) * 1e-3));
    return median(v);
  };
  double dram_bw = bandwidth([] { stream_read<<<sms * 2, 1024>>>(big, big_n, 1, (float *)f); },
                             big_n * 16.0);
  double l2_bw = bandwidth([] { stream_read<<<sms * 2, 1024>>>(big, l2_n, 64, (float *)f); },
                           l2_n * 16.0 * 64);
  double per_sm_cycle = sms * clock_mhz * 1e6;
  printf("    \"dram\": %.4f,\n    \"l2\": %.4f\n  },\n", 32 / (dram_bw / per_sm_cycle),
         32 / (l2_bw / per_sm_cycle));
  printf("  \"sm_clock_mhz_fp32_load\": %.1f,\n", loaded_clock_mhz);
  printf("  \"dram_read_gb_s\": %.1f,\n  \"l2_read_gb_s\": %.1f,\n", dram_bw / 1e9, l2_bw / 1e9);

  // Launch overhead: one empty launch alone (median of 101), and 2000 back to back.
  std::vector<double> alone;
  for (int r = 0; r < 101; r++) alone.push_back(elapsed_ms([] { empty<<<1, 32>>>(); }) * 1e3);
  float burst = elapsed_ms([] {
    for (int r = 0; r < 2000; r++) empty<<<1, 32>>>();
  });
  printf("  \"launch_alone_us\": %.3f,\n  \"launch_back_to_back_us\": %.3f\n}\n", median(alone),
         burst * 1e3 / 2000);
  return 0;
}
