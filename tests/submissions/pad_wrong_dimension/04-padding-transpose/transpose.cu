// A student's exercise 04: the pad on the wrong dimension, tile[33][32]: rows are still 32 floats
// long, so the column read stays 32-way (the lesson's baseline, with one row to spare).
#include "course_todo.h"

constexpr int kTile = 32;
constexpr int kRows = 8;

__global__ void transpose_tiled(float* out, const float* in, int n) {
  __shared__ float tile[kTile + 1][kTile];
  const int x = blockIdx.x * kTile + threadIdx.x;
  const int y = blockIdx.y * kTile + threadIdx.y;
  for (int j = 0; j < kTile; j += kRows) {
    if (x < n && y + j < n) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * n + x];
  }
  __syncthreads();
  const int ox = blockIdx.y * kTile + threadIdx.x;
  const int oy = blockIdx.x * kTile + threadIdx.y;
  for (int j = 0; j < kTile; j += kRows) {
    // lane tx reads tile[tx][ty + j]: word 32 tx + ty + j, bank (ty + j) % 32 for every lane
    if (ox < n && oy + j < n)
      out[(oy + j) * n + ox] = tile[threadIdx.x][threadIdx.y + j];  // @column
  }
}
