// Corpus: tiled C = A * B^T (A is m x k, B is n x k, both row-major), 32x32 tiles, one output per
// thread, block 32x32. Reading Bs[tx][kk] walks down a column of the B tile.
constexpr int kTile = 32;

template <int kPad>
__global__ void gemm_abt(float* c, const float* a, const float* b, int m, int n, int k) {
  __shared__ float as[kTile][kTile];
  __shared__ float bs[kTile][kTile + kPad];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * kTile + ty;  // row of C and A
  const int col = blockIdx.x * kTile + tx;  // column of C = row of B
  const int brow = blockIdx.x * kTile + ty;
  float acc = 0.0f;
  for (int k0 = 0; k0 < k; k0 += kTile) {
    as[ty][tx] = (row < m && k0 + tx < k) ? a[row * k + k0 + tx] : 0.0f;
    bs[ty][tx] = (brow < n && k0 + tx < k) ? b[brow * k + k0 + tx] : 0.0f;
    __syncthreads();
    for (int kk = 0; kk < kTile; ++kk) {
      acc += as[ty][kk] * bs[tx][kk];  // @gemm_inner: bs[tx][kk] is word (32+kPad)*tx + kk
    }
    __syncthreads();
  }
  if (row < m && col < n) c[row * n + col] = acc;
}
