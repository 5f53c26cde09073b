// Row sums by hand: one block per row, one thread per element, atomicAdd into s[i]
// (plus intrinsics that leave the value unchanged, to exercise the CPU runtime).
#define N 64
__global__ void rowsum_kernel(const float *A, float *s)
{
  int i = blockIdx.x;
  int j = threadIdx.x;
  atomicAdd(&s[i], A[i * N + j] * __saturatef(1.5f) + __expf(0.0f) - 1.0f);
}
void rowsum(const float A[N][N], float s[N])
{
  float *dA, *ds;
  cudaMalloc((void **)&dA, sizeof(float) * N * N);
  cudaMalloc((void **)&ds, sizeof(float) * N);
  cudaMemcpy(dA, A, sizeof(float) * N * N, cudaMemcpyHostToDevice);
  cudaMemcpy(ds, s, sizeof(float) * N, cudaMemcpyHostToDevice);
  rowsum_kernel<<<N, N>>>(dA, ds);
  cudaMemcpy(s, ds, sizeof(float) * N, cudaMemcpyDeviceToHost);
  cudaFree(dA);
  cudaFree(ds);
}
