// Student: stages A and a padded B tile (conflict-free stores), but the inner loop reads B from
// global memory instead of from its tile: lanes k floats apart, every iteration.
#include "course_todo.h"

constexpr int kTile = 32;

__global__ void gemm_abt(float* c, const float* a, const float* b, int m, int n, int k) {
  __shared__ float as[kTile][kTile];
  __shared__ float bs[kTile][kTile + 1];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * kTile + ty;
  const int col = blockIdx.x * kTile + tx;
  const int brow = blockIdx.x * kTile + ty;
  float acc = 0.0f;
  for (int k0 = 0; k0 < k; k0 += kTile) {
    as[ty][tx] = (row < m && k0 + tx < k) ? a[row * k + k0 + tx] : 0.0f;
    bs[ty][tx] = (brow < n && k0 + tx < k) ? b[brow * k + k0 + tx] : 0.0f;
    __syncthreads();
    if (col < n) {
      for (int kk = 0; kk < kTile && k0 + kk < k; ++kk) acc += as[ty][kk] * b[col * k + k0 + kk];
    }
    __syncthreads();
  }
  if (row < m && col < n) c[row * n + col] = acc;
}
