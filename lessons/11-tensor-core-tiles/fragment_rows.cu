// Lesson 11 - tiles for tensor cores: how a fragment load reads a shared half tile.
//   build/bin/banksim profile lessons/11-tensor-core-tiles/fragment_rows.cu --kernel fragment_load
//       --block 32 --arg 256 --arg 16
//   build/bin/banksim profile lessons/11-tensor-core-tiles/fragment_rows.cu --kernel ldmatrix_rows
//       --block 32 --arg 32 --arg 64 --arg 0
// On the H200 the same loads were counted with Nsight Compute
// (measurements/lessons/2026-12-03-tensor-core-tiles.md).
#include <cuda_fp16.h>
#include <mma.h>

using namespace nvcuda;

constexpr int kFrag = 16;        // a fragment is 16 x 16 halves: 16 memory rows of 32 bytes
constexpr int kMaxPitch = 128;   // the demo tile's widest row, in halves (256 bytes)
constexpr int kChunkHalves = 8;  // one 16-byte chunk (one ldmatrix row) = 8 halves

//! [fragment_load]
// One warp loads one matrix_a fragment from a tile whose rows are `ldm` halves apart. On sm_90
// nvcc compiles it to one LDSM.16.M88.4: lane l gives the address of memory row l % 16, chunk
// l / 16, and the 32 rows are read in 4 phases of 8 (rows 0-7, 8-15 of chunk 0, then chunk 1).
// Row r starts at byte 2 ldm r: its 16 bytes sit in bank group (2 ldm r / 16) mod 8.
__global__ void fragment_load(float* out, int ldm) {
  __shared__ __align__(128) half tile[kFrag * kMaxPitch];
  const int lane = threadIdx.x;
  for (int i = lane; i < kFrag * ldm; i += 32) tile[i] = __float2half(static_cast<float>(i % 5));
  __syncthreads();
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> b;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> c;
  wmma::load_matrix_sync(a, tile, ldm);  // ldm 16: rows 32 B apart, groups 0,2,4,6,0,..: 2-way
  wmma::fill_fragment(b, __float2half(1.0f));
  wmma::fill_fragment(c, 0.0f);
  wmma::mma_sync(c, a, b, c);
  wmma::store_matrix_sync(out, c, kFrag, wmma::mem_row_major);
}
//! [fragment_load]

//! [ldmatrix_rows]
// The addresses one ldmatrix.x4 takes, read as one 16-byte load per lane (the same 4 phases of
// 8 rows: banksim traces ldmatrix and wmma loads this way). Memory row r (0..15) of `pitch`
// halves, chunk c (0, 1). swizzle 1 is CuTe's Swizzle<3,4,3> on the byte offset o: bits 4-6 (the
// 16-byte chunk in a 128-byte line) XOR bits 7-9 (the line number mod 8).
__device__ inline unsigned swizzle_343(unsigned o) {
  return o ^ (((o >> 7) & 7u) << 4);
}
__global__ void ldmatrix_rows(float* out, int pitch, int swizzle) {
  __shared__ __align__(1024) half tile[kFrag * kMaxPitch];
  const int lane = threadIdx.x;
  for (int i = lane; i < kFrag * kMaxPitch; i += 32) tile[i] = __float2half(static_cast<float>(i));
  __syncthreads();
  const int r = lane % kFrag, c = lane / kFrag;
  unsigned offset = static_cast<unsigned>(2 * (r * pitch + c * kChunkHalves));  // bytes
  if (swizzle == 1) offset = swizzle_343(offset);
  const uint4 row = *reinterpret_cast<const uint4*>(reinterpret_cast<const char*>(tile) + offset);
  out[lane] = static_cast<float>(row.x ^ row.y ^ row.z ^ row.w);
}
//! [ldmatrix_rows]
