// Student: padded tile with a fast path for full tiles (no bounds tests) and a guarded path for
// the edge tiles; the guarded path lost its __syncthreads().
#include "course_todo.h"

constexpr int kTile = 32;
constexpr int kRows = 8;

__global__ void transpose_tiled(float* out, const float* in, int n) {
  __shared__ float tile[kTile][kTile + 1];
  const int x = blockIdx.x * kTile + threadIdx.x;
  const int y = blockIdx.y * kTile + threadIdx.y;
  const int ox = blockIdx.y * kTile + threadIdx.x;
  const int oy = blockIdx.x * kTile + threadIdx.y;
  const bool full = (blockIdx.x + 1) * kTile <= n && (blockIdx.y + 1) * kTile <= n;
  if (full) {
    for (int j = 0; j < kTile; j += kRows) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * n + x];
    __syncthreads();
    for (int j = 0; j < kTile; j += kRows)
      out[(oy + j) * n + ox] = tile[threadIdx.x][threadIdx.y + j];
  } else {
    for (int j = 0; j < kTile; j += kRows) {
      if (x < n && y + j < n) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * n + x];
    }
    for (int j = 0; j < kTile; j += kRows) {
      if (ox < n && oy + j < n) out[(oy + j) * n + ox] = tile[threadIdx.x][threadIdx.y + j];
    }
  }
}
