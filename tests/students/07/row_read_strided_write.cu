// Student: keeps the unpadded tile but reads it by rows, writing out[x][y + j] directly
// (the 32 lanes of a warp write 32 different rows of out).
#include "course_todo.h"

constexpr int kTile = 32;
constexpr int kRows = 8;

__global__ void transpose_double(double* out, const double* in, int n) {
  __shared__ double tile[kTile][kTile];
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
