// warp_shuffle_scan.cu - inclusive block scans built from warp shuffles, the pattern of CUB's
// warp-scan-based BlockScan and of the CUDA samples' shfl_scan: each warp scans its values with
// __shfl_up_sync(0xffffffff, ...), lane 31 stores the warp total in `__shared__ float sums[32]`,
// __syncthreads, the warp totals are scanned, and each warp adds the total of the warps before it.
//
// Exercises:
//   block_scan: one 4-byte store per warp (lane 31, distinct words) and a read of sums[lane] by
//     the first blockDim.x / 32 lanes. The samples let only the first warp scan the sums and store
//     them back (a second barrier); here EVERY warp scans them itself (the same values, no second
//     barrier), so that no warp skips a shared instruction. Conflict-free.
//   block_scan4: four items per thread, loaded coalesced ("striped") through shared memory
//     s[k * blockDim.x + t] and read back "blocked", s[4 t + k] (CUB's BLOCK_LOAD_WARP_TRANSPOSE
//     idea): as four 4-byte loads, lanes 4 words apart are a 4-way conflict; nvcc (sm_90) merges
//     them into one LDS.128 (s is 16-byte aligned and 4 t a multiple of 4): 512 bytes per warp,
//     4 wavefronts, conflict-free. The same scan as block_scan on the thread totals follows, and
//     the blocked write-back s[4 t + k] is merged the same way (STS.128).
// nvcc (sm_90): STS / LDS of 4 bytes except block_scan4's blocked read and write-back (LDS.128,
// STS.128).
//
// Every warp executes every shared instruction with at least one active lane; shared indices
// depend only on thread indices. blockDim.x is a multiple of 32, at most 1024.

constexpr unsigned kFull = 0xffffffffu;

// Inclusive scan of v over the 32 lanes of the warp.
__device__ __forceinline__ float warp_inclusive_scan(float v, int lane) {
#pragma unroll
  for (int d = 1; d < 32; d *= 2) {
    const float u = __shfl_up_sync(kFull, v, d);
    if (lane >= d) v += u;
  }
  return v;
}

// Inclusive scan of v over the block; sums is the block's 32-float scratch.
__device__ float block_inclusive_scan(float v, float* sums) {
  const int lane = static_cast<int>(threadIdx.x % 32);
  const int warp = static_cast<int>(threadIdx.x / 32);
  const int warps = static_cast<int>(blockDim.x / 32);
  v = warp_inclusive_scan(v, lane);
  if (lane == 31) sums[warp] = v;  // the warp's total
  __syncthreads();
  // Every warp scans the warp totals; lane warp - 1 then holds the total of the warps before it.
  float s = lane < warps ? sums[lane] : 0.0f;
  s = warp_inclusive_scan(s, lane);
  const float before = __shfl_sync(kFull, s, (warp + 31) % 32);
  return warp == 0 ? v : v + before;
}

// out = inclusive prefix sum of in, per block.
__global__ void block_scan(const float* __restrict__ in, float* __restrict__ out) {
  __shared__ float sums[32];
  const int g = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  out[g] = block_inclusive_scan(in[g], sums);
}

// The same scan with 4 consecutive items per thread (blockDim.x <= 256; 4 * blockDim.x items per
// block), staged through shared memory to make both global accesses coalesced.
__global__ void block_scan4(const float* __restrict__ in, float* __restrict__ out) {
  __shared__ __align__(16) float s[4 * 256];
  __shared__ float sums[32];
  const int t = static_cast<int>(threadIdx.x);
  const int n = static_cast<int>(blockDim.x);
  const float* src = in + blockIdx.x * 4 * blockDim.x;
  float* dst = out + blockIdx.x * 4 * blockDim.x;
#pragma unroll
  for (int k = 0; k < 4; ++k) s[k * n + t] = src[k * n + t];  // striped: conflict-free
  __syncthreads();
  float r[4];
#pragma unroll
  for (int k = 0; k < 4; ++k) r[k] = s[4 * t + k];  // blocked: thread t's items 4t .. 4t + 3
#pragma unroll
  for (int k = 1; k < 4; ++k) r[k] += r[k - 1];
  const float before = block_inclusive_scan(r[3], sums) - r[3];  // exclusive prefix of the totals
  __syncthreads();  // every thread has read its items before s is overwritten
#pragma unroll
  for (int k = 0; k < 4; ++k) s[4 * t + k] = r[k] + before;  // blocked write-back
  __syncthreads();
#pragma unroll
  for (int k = 0; k < 4; ++k) dst[k * n + t] = s[k * n + t];  // striped: conflict-free
}
