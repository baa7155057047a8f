// Exercise 02 - the column read: transpose an n x 32 matrix through a 32x32 shared tile.
//
// Task: out (32 x n, row-major) = in^T, where in is n x 32 (row-major). Block (32, 32) handles
// rows 32*blockIdx.x .. +31: it stages them in a tile with coalesced row reads, then each warp
// writes one row of `out`, which is a COLUMN of the tile. Declare the tile so that this column
// read is conflict-free. n need not be a multiple of 32.
// Launch: grid ceil(n / 32), block (32, 32).       Grade: make grade EXERCISE=02
#include "course_todo.h"

constexpr int kTile = 32;

__global__ void transpose_n_by_32(float* out, const float* in, int n) {
  // TODO(ex02.1): declare the tile so that its columns lie in 32 different banks (~1 line)
  __shared__ float tile[kTile][kTile];  // a column is 32 words of one bank
  course_todo("TODO(ex02.1)");
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.x * kTile + ty;
  if (row < n) tile[ty][tx] = in[row * kTile + tx];  // a row: lane tx writes column tx
  __syncthreads();
  const int col = blockIdx.x * kTile + tx;        // out[ty][col] = in[col][ty]
  if (col < n) out[ty * n + col] = tile[tx][ty];  // lane tx reads column ty of the tile
}
