// Student: XOR swizzle of the double tile: element (r, c) at tile[r][c ^ r].
#include "course_todo.h"

constexpr int kTile = 32;
constexpr int kRows = 8;

__global__ void transpose_double(double* out, const double* in, int n) {
  __shared__ double tile[kTile][kTile];
  const int x = blockIdx.x * kTile + threadIdx.x;
  const int y = blockIdx.y * kTile + threadIdx.y;
  for (int j = 0; j < kTile; j += kRows) {
    const int r = threadIdx.y + j;
    if (x < n && y + j < n) tile[r][threadIdx.x ^ r] = in[(y + j) * n + x];
  }
  __syncthreads();
  const int ox = blockIdx.y * kTile + threadIdx.x;
  const int oy = blockIdx.x * kTile + threadIdx.y;
  for (int j = 0; j < kTile; j += kRows) {
    const int c = threadIdx.y + j;
    if (ox < n && oy + j < n) out[(oy + j) * n + ox] = tile[threadIdx.x][c ^ threadIdx.x];
  }
}
