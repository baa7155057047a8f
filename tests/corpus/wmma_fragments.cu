// Tensor-core fragment loads from shared memory (CUDA's <mma.h>, nvcc's own headers on the GPU,
// banksim's stand-in on the CPU): one warp makes exactly one wmma load or store of a 16 x 16
// tile whose memory rows are LDM elements apart. The H200's counts for the same kernels are in
// measurements/lessons/2026-12-03-tensor-core-tiles (fragment_loads.cu): a half fragment load is
// one LDSM.x4, 4 wavefronts when the 8 rows of each phase fall in 8 different 16-byte bank
// groups, up to 32 when they share one.
#include <cuda_fp16.h>
#include <mma.h>

using namespace nvcuda;

// KIND: 0 matrix_a row_major, 1 matrix_a col_major, 2 matrix_b row_major, 3 matrix_b col_major.
// The tile holds in[i] (16 memory rows of LDM halves); the other operand is all ones, so out
// (16 x 16, row-major) is the row sums of A (KIND 0, 1) or the column sums of B (KIND 2, 3).
template <int LDM, int KIND>
__global__ void wmma_load(float* out, const float* in) {
  __shared__ __align__(128) half tile[16 * LDM];
  const int lane = threadIdx.x;
  for (int i = lane; i < 16 * LDM; i += 32) tile[i] = __float2half(in[i]);
  __syncthreads();
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
  wmma::fill_fragment(acc, 0.0f);
  if (KIND <= 1) {
    using L = typename std::conditional<KIND == 0, wmma::row_major, wmma::col_major>::type;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, L> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> b;
    wmma::load_matrix_sync(a, tile, LDM);  // @a_load
    wmma::fill_fragment(b, __float2half(1.0f));
    wmma::mma_sync(acc, a, b, acc);
  } else {
    using L = typename std::conditional<KIND == 2, wmma::row_major, wmma::col_major>::type;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, L> b;
    wmma::fill_fragment(a, __float2half(1.0f));
    wmma::load_matrix_sync(b, tile, LDM);  // @b_load
    wmma::mma_sync(acc, a, b, acc);
  }
  wmma::store_matrix_sync(out, acc, 16, wmma::mem_row_major);
}

// A float accumulator through a shared tile of LDM floats a row: stored (4 STS.64 on the H200),
// loaded back (4 LDS.64), written out (out[16 r + c] = 16 r + c + 1 when it round-trips).
template <int LDM>
__global__ void wmma_accumulator(float* out) {
  __shared__ __align__(128) float ctile[16 * LDM];
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> b;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
  wmma::fill_fragment(acc, 0.0f);
  wmma::store_matrix_sync(ctile, acc, LDM, wmma::mem_row_major);  // @c_store
  __syncwarp();
  // Overwrite with distinct values, one lane per row, then load them into the accumulator.
  if (threadIdx.x < 16)
    for (int c = 0; c < 16; ++c) ctile[threadIdx.x * LDM + c] = 16.0f * threadIdx.x + c;
  __syncwarp();
  wmma::load_matrix_sync(acc, ctile, LDM, wmma::mem_row_major);  // @c_load
  wmma::fill_fragment(a, __float2half(0.0f));
  wmma::fill_fragment(b, __float2half(0.0f));
  wmma::mma_sync(acc, a, b, acc);
  for (int i = 0; i < acc.num_elements; ++i) acc.x[i] += 1.0f;
  wmma::store_matrix_sync(out, acc, 16, wmma::mem_row_major);
}

// C = A B^T (A m x k, B n x k, row-major floats; m, n multiples of 64, k of 64) with 64 x 64
// tiles of LDM halves a row: 4 warps, each 32 x 32 of C (2 x 2 fragments).
template <int LDM>
__global__ void gemm_wmma(float* c, const float* a, const float* b, int m, int n, int k) {
  __shared__ __align__(128) half as[64 * LDM];
  __shared__ __align__(128) half bs[64 * LDM];
  const int t = threadIdx.x, warp = t / 32;
  const int row0 = blockIdx.y * 64, col0 = blockIdx.x * 64;
  const int wm = (warp / 2) * 32, wn = (warp % 2) * 32;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[2][2];
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j) wmma::fill_fragment(acc[i][j], 0.0f);
  for (int k0 = 0; k0 < k; k0 += 64) {
    for (int i = t; i < 64 * 8; i += 128) {
      const int r = i / 8, ch = i % 8;
      const float4* pa = reinterpret_cast<const float4*>(a + (row0 + r) * k + k0 + ch * 8);
      const float4* pb = reinterpret_cast<const float4*>(b + (col0 + r) * k + k0 + ch * 8);
      float4 x = pa[0], y = pa[1];
      half2 h[4] = {__floats2half2_rn(x.x, x.y), __floats2half2_rn(x.z, x.w),
                    __floats2half2_rn(y.x, y.y), __floats2half2_rn(y.z, y.w)};
      *reinterpret_cast<uint4*>(&as[r * LDM + ch * 8]) = *reinterpret_cast<uint4*>(h);  // @g_sta
      x = pb[0];
      y = pb[1];
      half2 g[4] = {__floats2half2_rn(x.x, x.y), __floats2half2_rn(x.z, x.w),
                    __floats2half2_rn(y.x, y.y), __floats2half2_rn(y.z, y.w)};
      *reinterpret_cast<uint4*>(&bs[r * LDM + ch * 8]) = *reinterpret_cast<uint4*>(g);  // @g_stb
    }
    __syncthreads();
    for (int kk = 0; kk < 64; kk += 16) {
      wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa[2];
      wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb[2];
      for (int i = 0; i < 2; ++i)
        wmma::load_matrix_sync(fa[i], &as[(wm + 16 * i) * LDM + kk], LDM);  // @g_lda
      for (int j = 0; j < 2; ++j)
        wmma::load_matrix_sync(fb[j], &bs[(wn + 16 * j) * LDM + kk], LDM);  // @g_ldb
      for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j) wmma::mma_sync(acc[i][j], fa[i], fb[j], acc[i][j]);
    }
    __syncthreads();
  }
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j)
      wmma::store_matrix_sync(c + (row0 + wm + 16 * i) * n + col0 + wn + 16 * j, acc[i][j], n,
                              wmma::mem_row_major);
}

// An accumulator's elements changed one by one are modelled; an A fragment's are not (banksim
// stops the kernel with its reason rather than compute something else).
__global__ void wmma_edit_a(float* out) {
  __shared__ __align__(128) half tile[16 * 16];
  for (int i = threadIdx.x; i < 256; i += 32) tile[i] = __float2half(1.0f);
  __syncthreads();
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> b;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
  wmma::load_matrix_sync(a, tile, 16);
  wmma::fill_fragment(b, __float2half(1.0f));
  wmma::fill_fragment(acc, 0.0f);
  a.x[0] = __float2half(2.0f);
  wmma::mma_sync(acc, a, b, acc);
  wmma::store_matrix_sync(out, acc, 16, wmma::mem_row_major);
}
