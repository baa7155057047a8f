// Lesson 05 - GEMM tiles: C = A * B^T with an unpadded B tile (the baseline of exercise 05).
//   build/bin/banksim profile lessons/05-gemm-tile/gemm_naive.cu --kernel gemm_abt_naive
//       --grid 2,2 --block 32,32 --arg 4096 --arg 4096 --arg 4096 --arg 64 --arg 64 --arg 64
constexpr int kTile = 32;

//! [gemm_abt_naive]
__global__ void gemm_abt_naive(float* c, const float* a, const float* b, int m, int n, int k) {
  __shared__ float as[kTile][kTile];
  __shared__ float bs[kTile][kTile];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * kTile + ty;
  const int col = blockIdx.x * kTile + tx;
  const int brow = blockIdx.x * kTile + ty;
  float acc = 0.0f;
  for (int k0 = 0; k0 < k; k0 += kTile) {
    as[ty][tx] = (row < m && k0 + tx < k) ? a[row * k + k0 + tx] : 0.0f;
    bs[ty][tx] = (brow < n && k0 + tx < k) ? b[brow * k + k0 + tx] : 0.0f;
    __syncthreads();
    for (int kk = 0; kk < kTile; ++kk) {
      const float a_value = as[ty][kk];  // same word for the whole warp: broadcast, 1 wavefront
      const float b_value = bs[tx][kk];  // word 32tx + kk: bank kk for every lane, 32-way
      acc += a_value * b_value;
    }
    __syncthreads();
  }
  if (row < m && col < n) c[row * n + col] = acc;
}
//! [gemm_abt_naive]
