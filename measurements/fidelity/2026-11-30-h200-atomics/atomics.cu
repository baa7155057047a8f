#include <cstdio>
__global__ void atom_i(int* out, int pattern) {
  __shared__ int s[2048];
  for (int i = threadIdx.x; i < 2048; i += blockDim.x) s[i] = 0;
  __syncthreads();
  int lane = threadIdx.x & 31;
  int idx = pattern == 0   ? lane
            : pattern == 1 ? 0
            : pattern == 2 ? 2 * lane
            : pattern == 3 ? 32 * lane
                           : lane / 2;
  for (int r = 0; r < 100; ++r) atomicAdd(&s[idx], 1);
  __syncthreads();
  out[threadIdx.x] = s[threadIdx.x];
}
__global__ void atom_f(float* out, int pattern) {
  __shared__ float s[2048];
  for (int i = threadIdx.x; i < 2048; i += blockDim.x) s[i] = 0;
  __syncthreads();
  int lane = threadIdx.x & 31;
  int idx = pattern == 0   ? lane
            : pattern == 1 ? 0
            : pattern == 2 ? 2 * lane
            : pattern == 3 ? 32 * lane
                           : lane / 2;
  for (int r = 0; r < 100; ++r) atomicAdd(&s[idx], 1.0f);
  __syncthreads();
  out[threadIdx.x] = s[threadIdx.x];
}
__global__ void atom_u64(unsigned long long* out, int pattern) {
  __shared__ unsigned long long s[1024];
  for (int i = threadIdx.x; i < 1024; i += blockDim.x) s[i] = 0;
  __syncthreads();
  int lane = threadIdx.x & 31;
  int idx = pattern == 0   ? lane
            : pattern == 1 ? 0
            : pattern == 2 ? 2 * lane
            : pattern == 3 ? 16 * lane
                           : lane / 2;
  for (int r = 0; r < 100; ++r) atomicAdd(&s[idx], 1ull);
  __syncthreads();
  out[threadIdx.x] = s[threadIdx.x];
}
int main() {
  void* d;
  cudaMalloc(&d, 1 << 16);
  for (int p = 0; p < 5; ++p) {
    atom_i<<<1, 32>>>((int*)d, p);
    atom_f<<<1, 32>>>((float*)d, p);
    atom_u64<<<1, 32>>>((unsigned long long*)d, p);
  }
  cudaError_t e = cudaDeviceSynchronize();
  printf("done: %s\n", cudaGetErrorString(e));
  return 0;
}
