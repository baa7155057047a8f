// Student: no padding: thread (tx, ty) loads B[32*bx + tx][k0 + ty] so the B tile is stored
// k-major with row stores and read by rows.
#include "course_todo.h"

constexpr int kTile = 32;

__global__ void gemm_abt(float* c, const float* a, const float* b, int m, int n, int k) {
  __shared__ float as[kTile][kTile];
  __shared__ float bt[kTile][kTile];  // bt[kk][j] = B[32*bx + j][k0 + kk]
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * kTile + ty;
  const int col = blockIdx.x * kTile + tx;
  float acc = 0.0f;
  for (int k0 = 0; k0 < k; k0 += kTile) {
    as[ty][tx] = (row < m && k0 + tx < k) ? a[row * k + k0 + tx] : 0.0f;
    bt[ty][tx] = (col < n && k0 + ty < k) ? b[col * k + k0 + ty] : 0.0f;
    __syncthreads();
    for (int kk = 0; kk < kTile; ++kk) acc += as[ty][kk] * bt[kk][tx];
    __syncthreads();
  }
  if (row < m && col < n) c[row * n + col] = acc;
}
