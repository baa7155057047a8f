// Student: padded tile filled by rows, then each thread writes its own element to
// out[x][y + j] (reads tile rows; 32 lanes write 32 different rows of out).
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
