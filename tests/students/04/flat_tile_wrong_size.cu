// Student: a flat tile of 32 * 32 floats indexed with a padded pitch of 33.
#include "course_todo.h"

constexpr int kTile = 32;
constexpr int kRows = 8;

constexpr int kPitch = kTile + 1;

__global__ void transpose_tiled(float* out, const float* in, int n) {
  __shared__ float tile[kTile * kTile];
  const int x = blockIdx.x * kTile + threadIdx.x;
  const int y = blockIdx.y * kTile + threadIdx.y;
  for (int j = 0; j < kTile; j += kRows) {
    if (x < n && y + j < n) tile[(threadIdx.y + j) * kPitch + threadIdx.x] = in[(y + j) * n + x];
  }
  __syncthreads();
  const int ox = blockIdx.y * kTile + threadIdx.x;
  const int oy = blockIdx.x * kTile + threadIdx.y;
  for (int j = 0; j < kTile; j += kRows) {
    if (ox < n && oy + j < n) out[(oy + j) * n + ox] = tile[threadIdx.x * kPitch + threadIdx.y + j];
  }
}
