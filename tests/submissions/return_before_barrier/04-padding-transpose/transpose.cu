// A student's exercise 04: threads outside the matrix return early, before the barrier, and the
// rest sit in an `if` around the barrier: in edge blocks the barrier is not reached by all.
#include "course_todo.h"

constexpr int kTile = 32;
constexpr int kRows = 8;

__global__ void transpose_tiled(float* out, const float* in, int n) {
  __shared__ float tile[kTile][kTile + 1];
  const int x = blockIdx.x * kTile + threadIdx.x;
  const int y = blockIdx.y * kTile + threadIdx.y;
  if (x >= n) return;  // @return
  if (y < n) {         // @if
    for (int j = 0; j < kTile; j += kRows) {
      if (y + j < n) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * n + x];
    }
    __syncthreads();  // @barrier
    const int ox = blockIdx.y * kTile + threadIdx.x;
    const int oy = blockIdx.x * kTile + threadIdx.y;
    for (int j = 0; j < kTile; j += kRows) {
      if (ox < n && oy + j < n) out[(oy + j) * n + ox] = tile[threadIdx.x][threadIdx.y + j];
    }
  }
}
