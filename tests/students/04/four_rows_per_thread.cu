// Student: padded tile; each thread moves 4 consecutive rows (4ty .. 4ty+3) instead of ty + 8j.
#include "course_todo.h"

constexpr int kTile = 32;
constexpr int kRows = 8;

__global__ void transpose_tiled(float* out, const float* in, int n) {
  __shared__ float tile[kTile][kTile + 1];
  constexpr int kPer = kTile / kRows;  // 4
  const int tx = threadIdx.x;
  const int r0 = threadIdx.y * kPer;
  const int x = blockIdx.x * kTile + tx;
#pragma unroll
  for (int i = 0; i < kPer; ++i) {
    const int y = blockIdx.y * kTile + r0 + i;
    if (x < n && y < n) tile[r0 + i][tx] = in[y * n + x];
  }
  __syncthreads();
  const int ox = blockIdx.y * kTile + tx;
#pragma unroll
  for (int i = 0; i < kPer; ++i) {
    const int oy = blockIdx.x * kTile + r0 + i;
    if (ox < n && oy < n) out[oy * n + ox] = tile[tx][r0 + i];
  }
}
