// profiler_api.cu - host code around a kernel that brackets it with cudaProfilerStart/Stop, as
// cuda-samples' matrixMul does (<cuda_profiler_api.h>): banksim compiles and runs the kernel.
#include <cuda_profiler_api.h>
#include <cuda_runtime.h>

__global__ void copy_tile(const float* in, float* out) {
  __shared__ float tile[32];
  tile[threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = tile[31 - threadIdx.x];
}

int main() {
  float *in = nullptr, *out = nullptr;
  cudaMalloc(&in, 32 * sizeof(float));
  cudaMalloc(&out, 32 * sizeof(float));
  cudaProfilerStart();
  copy_tile<<<1, 32>>>(in, out);
  cudaProfilerStop();
  return cudaDeviceSynchronize() == cudaSuccess ? 0 : 1;
}
