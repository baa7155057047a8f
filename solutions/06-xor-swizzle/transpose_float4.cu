// Exercise 06 - XOR swizzle: transpose a matrix of float4 with 16-byte shared accesses.
//
// Task: out = in^T for an n x n row-major matrix of float4 elements. A block (8, 32) moves a
// tile of 32 rows x 8 float4 (128 bytes per row, 4 KiB). 16-byte accesses are served by
// quarter-warps (8 lanes per phase). Reading a column of the tile puts the 8 lanes of a phase on
// the same 4 banks: 8-way. Fix it with an XOR swizzle of the 16-byte chunk index (lesson 06):
// no padding, so rows stay 128-byte aligned. Stuck? make hint EXERCISE=06
// Launch: grid (ceil(n/8), ceil(n/32)), block (8, 32).       Grade: make grade EXERCISE=06
#include "course_todo.h"

constexpr int kRows = 32;  // tile rows
constexpr int kCols = 8;   // tile columns (float4): 128 bytes, one row of banks

__global__ void transpose_float4(float4* out, const float4* in, int n) {
  __shared__ float4 tile[kRows][kCols];
  const int r = blockIdx.y * kRows + threadIdx.y;  // input row
  const int c = blockIdx.x * kCols + threadIdx.x;  // input column
  if (r < n && c < n) {
    // BEGIN SOLUTION ex06.1: store in[r][c] at its swizzled place in the tile (~1 line)
    tile[threadIdx.y][threadIdx.x ^ (threadIdx.y % kCols)] = in[r * n + c];
    // SKELETON: tile[threadIdx.y][threadIdx.x] = in[r * n + c];
    // SKELETON: course_todo("TODO(ex06.1)");
    // END SOLUTION
  }
  __syncthreads();
  // Warp w writes output row 8*blockIdx.x + w; lane l is output column 32*blockIdx.y + l.
  const int linear = threadIdx.y * kCols + threadIdx.x;
  const int tile_col = linear / kRows;  // 0..7: the tile column this warp reads
  const int tile_row = linear % kRows;  // 0..31: the lane
  const int out_r = blockIdx.x * kCols + tile_col;
  const int out_c = blockIdx.y * kRows + tile_row;
  if (out_r < n && out_c < n) {
    // BEGIN SOLUTION ex06.2: read element (tile_row, tile_col) from its swizzled place (~1 line)
    out[out_r * n + out_c] = tile[tile_row][tile_col ^ (tile_row % kCols)];
    // SKELETON: out[out_r * n + out_c] = tile[tile_row][tile_col];  // phase: 8 rows, one chunk
    // SKELETON: course_todo("TODO(ex06.2)");
    // END SOLUTION
  }
}
