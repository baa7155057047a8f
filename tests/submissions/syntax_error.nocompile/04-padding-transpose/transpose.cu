// A student's exercise 04 that does not compile: a missing semicolon after __syncthreads().
#include "course_todo.h"

constexpr int kTile = 32;
constexpr int kRows = 8;

__global__ void transpose_tiled(float* out, const float* in, int n) {
  __shared__ float tile[kTile][kTile + 1];
  const int x = blockIdx.x * kTile + threadIdx.x;
  const int y = blockIdx.y * kTile + threadIdx.y;
  for (int j = 0; j < kTile; j += kRows) {
    if (x < n && y + j < n) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * n + x];
  }
  __syncthreads()  // @missing_semicolon
      const int ox = blockIdx.y * kTile + threadIdx.x;
  const int oy = blockIdx.x * kTile + threadIdx.y;
  for (int j = 0; j < kTile; j += kRows) {
    if (ox < n && oy + j < n) out[(oy + j) * n + ox] = tile[threadIdx.x][threadIdx.y + j];
  }
}
