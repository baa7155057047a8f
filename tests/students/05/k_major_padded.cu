// Student: stores the B tile k-major (bt[kk][j], padded) so the inner loop reads a row of it.
#include "course_todo.h"

constexpr int kTile = 32;

__global__ void gemm_abt(float* c, const float* a, const float* b, int m, int n, int k) {
  __shared__ float as[kTile][kTile];
  __shared__ float bt[kTile][kTile + 1];  // bt[kk][j] = B[32*bx + j][k0 + kk]
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * kTile + ty;
  const int col = blockIdx.x * kTile + tx;
  const int brow = blockIdx.x * kTile + ty;
  float acc = 0.0f;
  for (int k0 = 0; k0 < k; k0 += kTile) {
    as[ty][tx] = (row < m && k0 + tx < k) ? a[row * k + k0 + tx] : 0.0f;
    // column store: lane tx writes word 33tx + ty, bank (tx + ty) % 32
    bt[tx][ty] = (brow < n && k0 + tx < k) ? b[brow * k + k0 + tx] : 0.0f;
    __syncthreads();
    for (int kk = 0; kk < kTile; ++kk) acc += as[ty][kk] * bt[kk][tx];  // row read
    __syncthreads();
  }
  if (row < m && col < n) c[row * n + col] = acc;
}
