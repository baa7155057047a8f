// Exercise 07 - wide accesses: transpose a matrix of doubles.
//
// Task: out = in^T for an n x n row-major matrix of doubles, with the same 32x32 tile and 32x8
// blocks as exercise 04. 8-byte accesses are served by half-warps: 16 lanes per phase, two
// phases per request, so a conflict-free request costs 2 wavefronts. Reading a column of
// double tile[32][32] costs 32: 16-way, not 32-way. Make the column read cost 2.
// Launch: grid (ceil(n/32), ceil(n/32)), block (32, 8).       Grade: make grade EXERCISE=07
#include "course_todo.h"

constexpr int kTile = 32;
constexpr int kRows = 8;

__global__ void transpose_double(double* out, const double* in, int n) {
  // BEGIN SOLUTION ex07.1: declare a tile of doubles whose columns are conflict-free (~1 line)
  __shared__ double tile[kTile][kTile + 1];  // lane t of a half-warp: words 66t+2c, +1: bank 2(t+c)
  // SKELETON: __shared__ double tile[kTile][kTile];  // words 64t+2c, +1: banks 2c, 2c+1 only
  // SKELETON: course_todo("TODO(ex07.1)");
  // END SOLUTION
  const int x = blockIdx.x * kTile + threadIdx.x;
  const int y = blockIdx.y * kTile + threadIdx.y;
  for (int j = 0; j < kTile; j += kRows) {
    if (x < n && y + j < n) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * n + x];
  }
  __syncthreads();
  const int ox = blockIdx.y * kTile + threadIdx.x;
  const int oy = blockIdx.x * kTile + threadIdx.y;
  for (int j = 0; j < kTile; j += kRows) {
    if (ox < n && oy + j < n) out[(oy + j) * n + ox] = tile[threadIdx.x][threadIdx.y + j];
  }
}
