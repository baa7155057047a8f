// Student: pads A's tile (rows of 72) and leaves B's rows at 64 halves: B's fragment loads stay
// 8-way.
#include <cuda_fp16.h>
#include <mma.h>

#include "course_todo.h"

using namespace nvcuda;

constexpr int kTile = 64;                        // C tile: 64 x 64; k slab: 64
constexpr int kFrag = 16;                        // wmma's m16n16k16 fragments
constexpr int kChunk = 8;                        // halves per 16-byte store
constexpr int kThreads = 128;                    // 4 warps, 2 x 2 of 32 x 32
constexpr int kChunks = kTile * kTile / kChunk;  // 16-byte chunks per slab of one operand

// 8 consecutive floats (32-byte aligned) as 8 halves in one 16-byte value.
__device__ inline uint4 to_half8(const float* p) {
  const float4 x = reinterpret_cast<const float4*>(p)[0];
  const float4 y = reinterpret_cast<const float4*>(p)[1];
  const half2 h[4] = {__floats2half2_rn(x.x, x.y), __floats2half2_rn(x.z, x.w),
                      __floats2half2_rn(y.x, y.y), __floats2half2_rn(y.z, y.w)};
  return *reinterpret_cast<const uint4*>(h);
}

__global__ void __launch_bounds__(kThreads)
    gemm_wmma(float* c, const float* a, const float* b, int m, int n, int k) {
  // Rows of 72 halves, 144 bytes: 16-byte row r starts in bank group 9r mod 8 = r mod 8, so the
  // 8 consecutive rows of an ldmatrix phase fill the 8 groups (all 32 banks) once.
  constexpr int kLdm = kTile + kChunk;
  __shared__ __align__(128) half as[kTile * kLdm];
  __shared__ __align__(128) half bs[kTile * kTile];
  COURSE_EXPECT(blockDim.x == kThreads && m % kTile + n % kTile + k % kTile == 0,
                "128 threads; m, n, k multiples of 64");
  const int t = threadIdx.x, warp = t / 32;
  const int row0 = blockIdx.y * kTile, col0 = blockIdx.x * kTile;
  const int wm = (warp / 2) * 32, wn = (warp % 2) * 32;  // the warp's 32 x 32 of the C tile
  wmma::fragment<wmma::accumulator, kFrag, kFrag, kFrag, float> acc[2][2];
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j) wmma::fill_fragment(acc[i][j], 0.0f);
  for (int k0 = 0; k0 < k; k0 += kTile) {
    // Stage: thread t converts chunks t, t + 128, ...: tile row r, halves 8 ch .. 8 ch + 7.
    for (int i = t; i < kChunks; i += kThreads) {
      const int r = i / (kTile / kChunk), ch = i % (kTile / kChunk);
      const uint4 va = to_half8(a + static_cast<size_t>(row0 + r) * k + k0 + ch * kChunk);
      const uint4 vb = to_half8(b + static_cast<size_t>(col0 + r) * k + k0 + ch * kChunk);
      *reinterpret_cast<uint4*>(&as[r * kLdm + ch * kChunk]) = va;
      *reinterpret_cast<uint4*>(&bs[r * kTile + ch * kChunk]) = vb;
    }
    __syncthreads();
    for (int kk = 0; kk < kTile; kk += kFrag) {
      wmma::fragment<wmma::matrix_a, kFrag, kFrag, kFrag, half, wmma::row_major> fa[2];
      wmma::fragment<wmma::matrix_b, kFrag, kFrag, kFrag, half, wmma::col_major> fb[2];
      // A's fragment i: rows wm + 16 i .. +15, k = kk .. kk + 15 (B's: rows of n, k along them).
      for (int i = 0; i < 2; ++i)
        wmma::load_matrix_sync(fa[i], &as[(wm + kFrag * i) * kLdm + kk], kLdm);
      for (int j = 0; j < 2; ++j)
        wmma::load_matrix_sync(fb[j], &bs[(wn + kFrag * j) * kTile + kk], kTile);
      for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j) wmma::mma_sync(acc[i][j], fa[i], fb[j], acc[i][j]);
    }
    __syncthreads();  // the next slab overwrites the tiles
  }
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j)
      wmma::store_matrix_sync(
          c + static_cast<size_t>(row0 + wm + kFrag * i) * n + col0 + wn + kFrag * j, acc[i][j], n,
          wmma::mem_row_major);
}
