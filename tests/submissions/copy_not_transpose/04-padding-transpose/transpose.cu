// A student's exercise 04: a plain copy instead of a transpose. The tile is filled and read back
// row by row and written to the block's own tile of `out`: out[r][c] = in[r][c].
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
  __syncthreads();
  for (int j = 0; j < kTile; j += kRows) {
    if (x < n && y + j < n) out[(y + j) * n + x] = tile[threadIdx.y + j][threadIdx.x];  // @copy
  }
}
