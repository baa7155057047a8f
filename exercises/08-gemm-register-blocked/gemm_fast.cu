// Exercise 08 (stretch) - a register-blocked C = A * B^T with 16-byte shared accesses.
//
// Task: a block of 256 threads computes a 128x128 tile of C, each thread 8x8 outputs; k advances
// 8 at a time. Both operands are k-contiguous in global memory, so each thread loads one float4
// of A and one of B (4 consecutive k) and stores them transposed (k-major) into shared memory,
// where the inner loop reads them back as float4 along m and n: 64 multiply-adds per four float4
// loads. Declare the tiles so that the transposing stores are conflict-free while every row stays
// 16-byte aligned for those loads.
// Preconditions: m and n multiples of 128, k a multiple of 8.
// Launch: grid (n/128, m/128), block 256.       Grade: make grade EXERCISE=08
#include "course_todo.h"

constexpr int kBlockM = 128;
constexpr int kBlockN = 128;
constexpr int kBlockK = 8;
static_assert(kBlockM % 4 == 0 && kBlockN % 4 == 0,
              "float4 rows of the tiles stay 16-byte aligned");

//! [gemm_abt_register_blocked]
__global__ void __launch_bounds__(256)
    gemm_abt_register_blocked(float* c, const float* a, const float* b, int m, int n, int k) {
  // TODO(ex08.1): declare the k-major tiles as[kBlockK][...] and bs[kBlockK][...] (~2 lines)
  __shared__ __align__(16) float as[kBlockK][kBlockM];  // stores: 2-way
  __shared__ __align__(16) float bs[kBlockK][kBlockN];
  course_todo("TODO(ex08.1)");
  COURSE_EXPECT(blockDim.x == 256 && m % 128 + n % 128 + k % 8 == 0, "256 threads; m,n:128x; k:8x");
  const int t = threadIdx.x;
  const int tx = t % 16;  // this thread's columns: 4tx..4tx+3 and 64+4tx..64+4tx+3
  const int ty = t / 16;  // this thread's rows:    4ty..4ty+3 and 64+4ty..64+4ty+3
  const int row0 = blockIdx.y * kBlockM;
  const int col0 = blockIdx.x * kBlockN;
  const int load_row = t / 2;      // the tile row this thread loads (of A and of B)
  const int load_k = (t % 2) * 4;  // its first k
  const float* a_src = a + static_cast<size_t>(row0 + load_row) * k + load_k;
  const float* b_src = b + static_cast<size_t>(col0 + load_row) * k + load_k;
  float acc[8][8] = {};
  for (int k0 = 0; k0 < k; k0 += kBlockK) {
    const float4 av = *reinterpret_cast<const float4*>(a_src + k0);
    const float4 bv = *reinterpret_cast<const float4*>(b_src + k0);
    as[load_k + 0][load_row] = av.x;
    as[load_k + 1][load_row] = av.y;
    as[load_k + 2][load_row] = av.z;
    as[load_k + 3][load_row] = av.w;
    bs[load_k + 0][load_row] = bv.x;
    bs[load_k + 1][load_row] = bv.y;
    bs[load_k + 2][load_row] = bv.z;
    bs[load_k + 3][load_row] = bv.w;
    __syncthreads();
    // acc[i][j] += A(row i) * B(col j) over this k-tile: four float4 loads, 64 multiply-adds.
#pragma unroll
    for (int kk = 0; kk < kBlockK; ++kk) {
      const float4 a0 = *reinterpret_cast<const float4*>(&as[kk][4 * ty]);
      const float4 a1 = *reinterpret_cast<const float4*>(&as[kk][64 + 4 * ty]);
      const float4 b0 = *reinterpret_cast<const float4*>(&bs[kk][4 * tx]);
      const float4 b1 = *reinterpret_cast<const float4*>(&bs[kk][64 + 4 * tx]);
      const float ar[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
      const float br[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
      for (int i = 0; i < 8; ++i) {
#pragma unroll
        for (int j = 0; j < 8; ++j) acc[i][j] += ar[i] * br[j];
      }
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const int r = row0 + (i < 4 ? 4 * ty + i : 64 + 4 * ty + i - 4);
    float* dst = c + static_cast<size_t>(r) * n + col0;
    *reinterpret_cast<float4*>(dst + 4 * tx) =
        make_float4(acc[i][0], acc[i][1], acc[i][2], acc[i][3]);
    *reinterpret_cast<float4*>(dst + 64 + 4 * tx) =
        make_float4(acc[i][4], acc[i][5], acc[i][6], acc[i][7]);
  }
}
//! [gemm_abt_register_blocked]
