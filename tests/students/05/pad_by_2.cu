// Student: pads the B tile by 2 floats per row.
#include "course_todo.h"

constexpr int kTile = 32;

__global__ void gemm_abt(float* c, const float* a, const float* b, int m, int n, int k) {
  __shared__ float as[kTile][kTile];
  __shared__ float bs[kTile][kTile + 2];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * kTile + ty;
  const int col = blockIdx.x * kTile + tx;
  const int brow = blockIdx.x * kTile + ty;
  float acc = 0.0f;
  for (int k0 = 0; k0 < k; k0 += kTile) {
    as[ty][tx] = (row < m && k0 + tx < k) ? a[row * k + k0 + tx] : 0.0f;
    bs[ty][tx] = (brow < n && k0 + tx < k) ? b[brow * k + k0 + tx] : 0.0f;
    __syncthreads();
    for (int kk = 0; kk < kTile; ++kk) acc += as[ty][kk] * bs[tx][kk];
    __syncthreads();
  }
  if (row < m && col < n) c[row * n + col] = acc;
}
