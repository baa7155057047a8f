// Student: stores the tile already transposed (tt[c][r], 8 rows of 32 float4) with the XOR
// swizzle on the store side, then each warp copies one row of tt.
#include "course_todo.h"

constexpr int kRows = 32;  // tile rows
constexpr int kCols = 8;   // tile columns (float4)

__global__ void transpose_float4(float4* out, const float4* in, int n) {
  __shared__ float4 tt[kCols][kRows];  // element (r, c) of the input tile at tt[c][r ^ c]
  const int r = blockIdx.y * kRows + threadIdx.y;
  const int c = blockIdx.x * kCols + threadIdx.x;
  if (r < n && c < n) tt[threadIdx.x][threadIdx.y ^ threadIdx.x] = in[r * n + c];
  __syncthreads();
  const int linear = threadIdx.y * kCols + threadIdx.x;
  const int tile_col = linear / kRows;
  const int tile_row = linear % kRows;
  const int out_r = blockIdx.x * kCols + tile_col;
  const int out_c = blockIdx.y * kRows + tile_row;
  if (out_r < n && out_c < n) out[out_r * n + out_c] = tt[tile_col][tile_row ^ tile_col];
}
