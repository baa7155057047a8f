#include <cuda_runtime.h>
#include <cstdio>

// runtime_header.cu - a 1-D stencil of radius 3 written the way CUDA samples and tutorials write
// it: the runtime header first, the tile (with its halo) in dynamic shared memory
// (`extern __shared__ float s[]`, launched with (blockDim.x + 2 * kRadius) * 4 bytes), inputs
// read through the read-only cache with __ldg, weights in __constant__ memory.
//
// Exercises: 4-byte stores of a tile plus halo through a block-strided loop (warp 0 runs the loop
// body twice, the other warps once), seven 4-byte neighbour reads per output (conflict-free,
// scalar LDS: the dynamic array's offset is not known to be aligned), and a second kernel whose
// warps each stage their own 32 + 2 * kRadius floats, with the halo stored by the first and the
// last kRadius lanes of every warp (38-float segments: segment w starts at bank 6 w mod 32).
// nvcc (sm_90): STS / LDS, 4 bytes each; no merged accesses.
//
// Every warp executes every shared instruction with at least one active lane; shared indices
// depend only on thread and block indices (global indices are clamped at the array's ends).

constexpr int kRadius = 3;

__constant__ float kWeights[2 * kRadius + 1] = {0.05f, 0.1f, 0.2f, 0.3f, 0.2f, 0.1f, 0.05f};

// Clamps a global index to [0, n - 1] (the boundary condition: the end values repeat).
__device__ __forceinline__ int clamp_index(int i, int n) {
  return i < 0 ? 0 : (i >= n ? n - 1 : i);
}

// out[i] = sum_k w[k] in[i + k - kRadius]; one output per thread, the block's tile in s[].
__global__ void stencil1d(const float* __restrict__ in, float* __restrict__ out, int n) {
  extern __shared__ float s[];
  const int base = static_cast<int>(blockIdx.x * blockDim.x);
  const int tile = static_cast<int>(blockDim.x) + 2 * kRadius;
  // s[i] holds in[base - kRadius + i]: the tile and both halos, loaded block-strided.
  for (int i = static_cast<int>(threadIdx.x); i < tile; i += static_cast<int>(blockDim.x)) {
    s[i] = __ldg(&in[clamp_index(base - kRadius + i, n)]);
  }
  __syncthreads();
  const int lid = static_cast<int>(threadIdx.x) + kRadius;
  float sum = 0.0f;
#pragma unroll
  for (int k = -kRadius; k <= kRadius; ++k) sum += kWeights[k + kRadius] * s[lid + k];
  const int gid = base + static_cast<int>(threadIdx.x);
  if (gid < n) out[gid] = sum;
}

// The same stencil with a tile per warp: warp w owns s[w * 38 .. w * 38 + 37] (its 32 values and
// a halo of kRadius on each side); only __syncwarp is needed. Launch with
// (blockDim.x / 32) * (32 + 2 * kRadius) * 4 bytes.
__global__ void stencil1d_warp(const float* __restrict__ in, float* __restrict__ out, int n) {
  extern __shared__ float s[];
  constexpr int kSeg = 32 + 2 * kRadius;
  const int lane = static_cast<int>(threadIdx.x % 32);
  const int warp = static_cast<int>(threadIdx.x / 32);
  const int gid = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  float* seg = s + warp * kSeg;
  seg[kRadius + lane] = __ldg(&in[clamp_index(gid, n)]);
  if (lane < kRadius) seg[lane] = __ldg(&in[clamp_index(gid - kRadius, n)]);  // left halo
  if (lane >= 32 - kRadius) seg[lane + 2 * kRadius] = __ldg(&in[clamp_index(gid + kRadius, n)]);
  __syncwarp();
  float sum = 0.0f;
#pragma unroll
  for (int k = 0; k <= 2 * kRadius; ++k) sum += kWeights[k] * seg[lane + k];
  if (gid < n) out[gid] = sum;
#ifdef STENCIL_DEBUG
  if (gid == 0) printf("stencil1d_warp: out[0] = %f\n", sum);
#endif
}
