// Student: XOR-swizzles the store into the tile but reads the column unswizzled.
#include "course_todo.h"

constexpr int kTile = 32;

__global__ void transpose_n_by_32(float* out, const float* in, int n) {
  __shared__ float tile[kTile][kTile];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.x * kTile + ty;
  if (row < n) tile[ty][tx ^ ty] = in[row * kTile + tx];
  __syncthreads();
  const int col = blockIdx.x * kTile + tx;
  if (col < n) out[ty * n + col] = tile[tx][ty];
}
