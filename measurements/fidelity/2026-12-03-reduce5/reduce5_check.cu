// Where reduce5's 3 extra shared-load wavefronts a block come from (the H200 reads 20 for 14
// requests in 2 blocks, banksim 14): reduce5<float, 256> of tests/public as it is, and three
// kernels of its shape, each one predicated LDS of lanes tid < 128 reading s[tid + 128] (conflict-
// free): after one barrier with an immediate offset, after two back-to-back barriers (as
// reduce5's cg::sync pair compiles), and with the offset in a register (as reduce4's loop has).
#include <cstdio>

#include "../../../tests/public/cuda-samples/reduction_kernel.cu"

template __global__ void reduce5<float, 256>(float*, float*, unsigned int);
// The sample's host code calls isPow2, defined in another file of the sample.
extern "C" bool isPow2(unsigned int x) {
  return (x & (x - 1)) == 0;
}

__global__ void pred_one_barrier(float* out) {
  extern __shared__ float s[];
  const unsigned t = threadIdx.x;
  s[t] = static_cast<float>(t);
  __syncthreads();
  float v = 0.0f;
  if (t < 128) v = s[t + 128];
  out[blockIdx.x * blockDim.x + t] = v;
}

__global__ void pred_two_barriers(float* out) {
  extern __shared__ float s[];
  const unsigned t = threadIdx.x;
  s[t] = static_cast<float>(t);
  __syncthreads();
  __syncthreads();
  float v = 0.0f;
  if (t < 128) v = s[t + 128];
  out[blockIdx.x * blockDim.x + t] = v;
}

__global__ void pred_register_offset(float* out, unsigned off) {
  extern __shared__ float s[];
  const unsigned t = threadIdx.x;
  s[t] = static_cast<float>(t);
  __syncthreads();
  float v = 0.0f;
  if (t < off) v = s[t + off];
  out[blockIdx.x * blockDim.x + t] = v;
}

int main() {
  float *in = nullptr, *out = nullptr;
  cudaMalloc(&in, 1024 * sizeof(float));
  cudaMalloc(&out, 1024 * sizeof(float));
  cudaMemset(in, 0, 1024 * sizeof(float));
  reduce5<float, 256><<<2, 256, 1024>>>(in, out, 1024);
  pred_one_barrier<<<2, 256, 1024>>>(out);
  pred_two_barriers<<<2, 256, 1024>>>(out);
  pred_register_offset<<<2, 256, 1024>>>(out, 128);
  const cudaError_t e = cudaDeviceSynchronize();
  std::printf("%s\n", cudaGetErrorString(e));
  return e == cudaSuccess ? 0 : 1;
}
