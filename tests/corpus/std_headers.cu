// The headers everyday CUDA includes compile unchanged under banksim (and
// nvcc): the runtime, half and bfloat16 types, cooperative groups with reduce and memcpy_async,
// libcu++ basics and the C++ standard library's <cstdio>, <cmath>, <memory>.
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cooperative_groups/reduce.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <cuda/std/array>
#include <cuda/std/cstdint>

#include <cmath>
#include <cstdio>
#include <memory>

namespace cg = cooperative_groups;

// Each block stages 64 floats, each warp sums its norms with cg::reduce.
__global__ void norms(float* out, const float* in) {
  __shared__ float s[64];
  cg::thread_block block = cg::this_thread_block();
  cg::memcpy_async(block, s, in + blockIdx.x * 64, sizeof(float) * 64);
  cg::wait(block);
  const cuda::std::array<float, 2> v = {s[threadIdx.x], std::sqrt(std::fabs(s[threadIdx.x]))};
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  const float sum = cg::reduce(warp, v[0] * v[1], cg::plus<float>());
  if (warp.thread_rank() == 0) out[blockIdx.x * 2 + warp.meta_group_rank()] = sum;
}

// Host code with the standard library: a buffer owned by a unique_ptr, printf.
int run_norms() {
  const int n = 128;
  std::unique_ptr<float[]> host(new float[n]);
  for (int i = 0; i < n; ++i) host[i] = static_cast<float>(i % 7) - 3.0f;
  float* in = nullptr;
  float* out = nullptr;
  cudaMalloc(&in, n * sizeof(float));
  cudaMalloc(&out, 4 * sizeof(float));
  cudaMemcpy(in, host.get(), n * sizeof(float), cudaMemcpyHostToDevice);
  norms<<<2, 64>>>(out, in);
  float sums[4];
  cudaMemcpy(sums, out, sizeof sums, cudaMemcpyDeviceToHost);
  std::printf("%.3f %.3f %.3f %.3f\n", sums[0], sums[1], sums[2], sums[3]);
  cudaFree(in);
  cudaFree(out);
  return 0;
}
