// Student: no shared memory and no tensor cores: float FMAs straight from global memory.
#include "course_todo.h"

constexpr int kTile = 64;

// No tiles, no tensor cores: each thread computes 32 elements of the block's 64 x 64 tile of C
// with float FMAs, reading A and B from global memory.
__global__ void __launch_bounds__(128)
    gemm_wmma(float* c, const float* a, const float* b, int m, int n, int k) {
  const int t = threadIdx.x;
  const int row0 = blockIdx.y * kTile, col0 = blockIdx.x * kTile;
  const int col = col0 + t % kTile;
  for (int r = t / kTile; r < kTile; r += 2) {
    float acc = 0.0f;
    for (int q = 0; q < k; ++q)
      acc += a[static_cast<size_t>(row0 + r) * k + q] * b[static_cast<size_t>(col) * k + q];
    c[static_cast<size_t>(row0 + r) * n + col] = acc;
  }
}
