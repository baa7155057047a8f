// Student: a plain float tile (32 rows of 32 floats) written and read as float4 at the swizzled
// 16-byte chunk c ^ (r % 8).
#include "course_todo.h"

constexpr int kRows = 32;  // tile rows
constexpr int kCols = 8;   // tile columns (float4)

__global__ void transpose_float4(float4* out, const float4* in, int n) {
  __shared__ __align__(16) float tile[kRows][4 * kCols];
  const int r = blockIdx.y * kRows + threadIdx.y;
  const int c = blockIdx.x * kCols + threadIdx.x;
  if (r < n && c < n) {
    const int chunk = threadIdx.x ^ (threadIdx.y % kCols);
    *reinterpret_cast<float4*>(&tile[threadIdx.y][4 * chunk]) = in[r * n + c];
  }
  __syncthreads();
  const int linear = threadIdx.y * kCols + threadIdx.x;
  const int tile_col = linear / kRows;
  const int tile_row = linear % kRows;
  const int out_r = blockIdx.x * kCols + tile_col;
  const int out_c = blockIdx.y * kRows + tile_row;
  if (out_r < n && out_c < n) {
    const int chunk = tile_col ^ (tile_row % kCols);
    out[out_r * n + out_c] = *reinterpret_cast<const float4*>(&tile[tile_row][4 * chunk]);
  }
}
