// cuda_barrier_check.cu - tests/corpus/cuda_barrier.cu's staged_sum and group_copy on the H200:
// their outputs against the host's sums, for banksim's test `cuda::barrier: ...`; profiled with ncu
// for the shared-memory requests and wavefronts of its cuda::memcpy_async copies (LDGSTS) and
// loads.
//   nvcc -arch=sm_90 -lineinfo -o cuda_barrier_check cuda_barrier_check.cu && ./cuda_barrier_check
#include <cstdio>

#include "../../tests/corpus/cuda_barrier.cu"

int main() {
  const int tiles = 4;
  float4* in;
  float* out;
  cudaMallocManaged(&in, tiles * 64 * sizeof(float4));
  cudaMallocManaged(&out, 64 * sizeof(float));
  for (int i = 0; i < tiles * 64; ++i) {
    in[i] = make_float4(static_cast<float>(i % 7), static_cast<float>(i % 5), 0.5f,
                        static_cast<float>(i % 3));
  }
  staged_sum<<<1, 64>>>(out, in, tiles);
  if (cudaDeviceSynchronize() != cudaSuccess) return 1;
  int bad = 0;
  for (int t = 0; t < 64; ++t) {
    float want = 0;
    for (int k = 0; k < tiles; ++k) {
      const float4 v = in[k * 64 + 63 - t];
      want += v.x + v.y + v.z + v.w;
    }
    bad += out[t] != want;
  }
  std::printf("staged_sum: %d of 64 outputs differ from the host's sums\n", bad);
  group_copy<<<1, 64>>>(out, in);
  if (cudaDeviceSynchronize() != cudaSuccess) return 1;
  bad = 0;
  for (int t = 0; t < 64; ++t) {
    const float4 v = in[63 - t];
    bad += out[t] != v.x + v.y + v.z + v.w;
  }
  std::printf("group_copy: %d of 64 outputs differ from the host's sums\n", bad);
  return 0;
}
