// Exercise 05 - GEMM tiles: C = A * B^T with 32x32 shared tiles, one output per thread.
//
// Task: A is m x k, B is n x k, C is m x n, all row-major, fp32. Thread (tx, ty) of block
// (bx, by) computes C[32*by + ty][32*bx + tx] = sum_k A[row][k] * B[col][k]. Both operands are
// staged tile by tile in shared memory; the inner loop reads bs[tx][kk], a column of the B tile:
// 32 lanes, 32 words of one bank. Declare the tiles so that the inner loop is conflict-free.
// Launch: grid (ceil(n/32), ceil(m/32)), block (32, 32).       Grade: make grade EXERCISE=05
#include "course_todo.h"

constexpr int kTile = 32;

__global__ void gemm_abt(float* c, const float* a, const float* b, int m, int n, int k) {
  // BEGIN SOLUTION ex05.1: declare the two tiles (~2 lines)
  __shared__ float as[kTile][kTile];      // as[ty][kk]: one word for the whole warp (broadcast)
  __shared__ float bs[kTile][kTile + 1];  // bs[tx][kk]: word 33tx + kk -> bank (tx + kk) % 32
  // SKELETON: __shared__ float as[kTile][kTile];
  // SKELETON: __shared__ float bs[kTile][kTile];  // bs[tx][kk]: word 32tx + kk, all in bank kk
  // SKELETON: course_todo("TODO(ex05.1)");
  // END SOLUTION
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * kTile + ty;   // row of C and A
  const int col = blockIdx.x * kTile + tx;   // column of C
  const int brow = blockIdx.x * kTile + ty;  // row of B this thread stages
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
