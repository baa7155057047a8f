// host_api.cu - a kernel file with the host code public CUDA files carry around their kernels
// (banksim runs the kernel; the rest must compile and link unchanged): helper_cuda.h-style error
// checks that exist only once CUDA's runtime headers are in, device properties and attributes,
// events, __constant__ symbols, managed and pinned memory, kernel attributes, a launch with NULL
// and 0 for a pointer, the cuBLAS header (host code includes it for a reference GEMM) and C's
// isfinite in a kernel.
#include <cstdio>

#include <cuda_runtime.h>
#if __has_include(<cublas_v2.h>)
#include <cublas_v2.h>
#endif

// As helper_cuda.h: only defined where driver_types.h / cuda_runtime.h were included.
#ifdef __DRIVER_TYPES_H__
#define check_cuda(call)                                                            \
  do {                                                                              \
    const cudaError_t e = (call);                                                   \
    if (e != cudaSuccess) {                                                         \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorName(e)); \
      return 1;                                                                     \
    }                                                                               \
  } while (0)
#endif

__constant__ float weights[4];

// out[t] = in[t] * weights[t % 4], through a padded shared tile; non-finite values are dropped.
__global__ void weigh(float* out, const float* in, int n, const int* mask) {
  __shared__ float tile[32][33];
  const int t = threadIdx.x;
  tile[t][0] = t < n ? in[t] * weights[t % 4] : 0.0f;
  __syncthreads();
  const float v = tile[t][0];
  if (t < n && (mask == nullptr || mask[t] != 0)) out[t] = isfinite(v) ? v : 0.0f;
}

int main() {
  cudaDeviceProp prop;
  check_cuda(cudaGetDeviceProperties(&prop, 0));
  int major = 0, sms = 0;
  check_cuda(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0));
  check_cuda(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  std::printf("%s: sm_%d%d, %d SMs\n", prop.name, prop.major, prop.minor, sms);
  const float h[4] = {1, 2, 3, 4};
  check_cuda(cudaMemcpyToSymbol(weights, h, sizeof h));
  float* in = nullptr;
  float* out = nullptr;
  check_cuda(cudaMalloc(&in, 32 * sizeof(float)));
  check_cuda(cudaMallocManaged(&out, 32 * sizeof(float)));
  float* pinned = nullptr;
  check_cuda(cudaMallocHost(&pinned, 32 * sizeof(float)));
  for (int i = 0; i < 32; ++i) pinned[i] = static_cast<float>(i);
  check_cuda(cudaMemcpy(in, pinned, 32 * sizeof(float), cudaMemcpyHostToDevice));
  check_cuda(cudaFuncSetAttribute(weigh, cudaFuncAttributeMaxDynamicSharedMemorySize, 65536));
  cudaEvent_t start, stop;
  check_cuda(cudaEventCreate(&start));
  check_cuda(cudaEventCreate(&stop));
  check_cuda(cudaEventRecord(start));
  weigh<<<1, 32>>>(out, in, 32, NULL);
  weigh<<<1, 32, 0, 0>>>(out, in, 32, 0);
  check_cuda(cudaGetLastError());
  check_cuda(cudaEventRecord(stop));
  check_cuda(cudaEventSynchronize(stop));
  float ms = 0;
  check_cuda(cudaEventElapsedTime(&ms, start, stop));
  std::printf("out[5] = %g in %.3f ms\n", out[5], ms);
  check_cuda(cudaFreeHost(pinned));
  check_cuda(cudaFree(in));
  check_cuda(cudaFree(out));
  return 0;
}
