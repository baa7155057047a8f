// Exercise 04 - the padding fix, applied to the matrix transpose.
//
// Task: out = in^T for an n x n row-major matrix. Each 32x8 block moves one 32x32 tile: it reads
// rows of `in` (coalesced) into a shared tile, then writes rows of `out` (coalesced), which are
// columns of the tile. Make the column read conflict-free by padding the tile. n need not be a
// multiple of 32.
// Launch: grid (ceil(n/32), ceil(n/32)), block (32, 8).       Grade: make grade EXERCISE=04
#include "course_todo.h"

constexpr int kTile = 32;
constexpr int kRows = 8;  // threads per tile column: each thread moves kTile / kRows elements

__global__ void transpose_tiled(float* out, const float* in, int n) {
  // BEGIN SOLUTION ex04.1: declare the padded tile (~1 line)
  __shared__ float tile[kTile][kTile + 1];  // tile[r][c] is word 33r + c: bank (r + c) % 32
  // SKELETON: __shared__ float tile[kTile][kTile];
  // SKELETON: course_todo("TODO(ex04.1)");
  // END SOLUTION
  const int x = blockIdx.x * kTile + threadIdx.x;
  const int y = blockIdx.y * kTile + threadIdx.y;
  for (int j = 0; j < kTile; j += kRows) {
    if (x < n && y + j < n) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * n + x];  // @write
  }
  // (no __syncthreads here)
  const int ox = blockIdx.y * kTile + threadIdx.x;  // out[oy][ox] = in[ox][oy]
  const int oy = blockIdx.x * kTile + threadIdx.y;
  for (int j = 0; j < kTile; j += kRows) {
    // lane tx reads tile[tx][ty + j]: a column of the tile
    if (ox < n && oy + j < n) out[(oy + j) * n + ox] = tile[threadIdx.x][threadIdx.y + j];  // @read
  }
}
