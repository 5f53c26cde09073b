// Row sums with the warp shuffles and atomics people write by hand: a butterfly sum
// (__shfl_xor_sync), a broadcast (__shfl_sync), an inclusive scan (__shfl_up_sync) that
// picks the warp's last lane, and atomicOr / atomicInc on shared flags. One block of 64
// threads (two warps) per row; the CPU runtime must run every one of them as a GPU does.
#define N 64
__global__ void rowsum_kernel(const float *A, float *s)
{
  __shared__ unsigned warps_seen;
  __shared__ unsigned arrivals;
  int i = blockIdx.x;
  int j = threadIdx.x;
  int lane = j % 32;
  if (j == 0) {
    warps_seen = 0;
    arrivals = 0;
  }
  __syncthreads();
  float v = A[i * N + j];
  for (int offset = 16; offset > 0; offset /= 2)
    v += __shfl_xor_sync(0xffffffffu, v, offset);
  v = __shfl_sync(0xffffffffu, v, 7);
  int rank = 1;
  for (int offset = 1; offset < 32; offset *= 2) {
    int before = __shfl_up_sync(0xffffffffu, rank, offset);
    if (lane >= offset)
      rank += before;
  }
  atomicOr(&warps_seen, 1u << (j / 32));
  atomicInc(&arrivals, 1000u);
  __syncthreads();
  if (rank == 32 && warps_seen == 3u && arrivals == 64u)
    atomicAdd(&s[i], v);
}
void rowsum(const float A[N][N], float s[N])
{
  float *dA, *ds;
  cudaMalloc(&dA, sizeof(float) * N * N);
  cudaMalloc(&ds, sizeof(float) * N);
  cudaMemcpy(dA, A, sizeof(float) * N * N, cudaMemcpyHostToDevice);
  cudaMemcpy(ds, s, sizeof(float) * N, cudaMemcpyHostToDevice);
  rowsum_kernel<<<N, N>>>(dA, ds);
  cudaMemcpy(s, ds, sizeof(float) * N, cudaMemcpyDeviceToHost);
  cudaFree(dA);
  cudaFree(ds);
}
