// Student: fills the padded tile by rows and, after the barrier, reads back the same rows (every
// shared access conflict-free, as many requests as the baseline's), then writes each element to
// out[x][y + j]: the tile transposes nothing, and every global store is uncoalesced (lanes n
// floats apart, 32 sectors per request).
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
    if (x < n && y + j < n) out[x * n + y + j] = tile[threadIdx.y + j][threadIdx.x];
  }
}
