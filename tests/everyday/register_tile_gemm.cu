// register_tile_gemm.cu - a register-tiled SGEMM block in the style of the classic CUDA SGEMM
// tutorials: C = A B (A is M x K, B is K x N, row-major; M, N multiples of 64, K of 8). A block of
// 256 threads computes a 64 x 64 tile of C, each thread a 4 x 4 sub-tile held in registers; the
// K dimension advances 8 at a time through `As[8][64]` (A's tile stored transposed, k-major) and
// `Bs[8][64]`.
//
// Exercises:
//   the tile loads: As[c][r] = A[r][c] (lanes 0..31 cover 4 rows r and 8 columns c: word 64 c + r,
//     4 banks with 8 words each: 8-way), Bs[r][c] = B[r][c] (row-major, conflict-free).
//   the inner loop: a[i] = As[k][ty * 4 + i] and b[j] = Bs[k][tx * 4 + j] into register arrays.
//     nvcc (sm_90) merges each group of four into one LDS.128 (the rows are 256-byte aligned and
//     ty * 4, tx * 4 are multiples of 4 floats): per warp, As reads 2 distinct 16-byte words
//     (ty = 2 w, 2 w + 1: broadcast), Bs reads 16 distinct 16-byte words (256 bytes).
//   Source-level (banksim at -O1): 4 + 4 scalar 4-byte loads per k instead.
// nvcc (sm_90): STS (tile loads, 4 bytes), LDS.128 (inner loop, 16 loads per k step).
//
// Every warp executes every shared instruction with all 32 lanes active.

constexpr int kBlockM = 64;
constexpr int kBlockN = 64;
constexpr int kBlockK = 8;
constexpr int kThreadM = 4;
constexpr int kThreadN = 4;
constexpr int kThreads = 256;  // (kBlockM / kThreadM) * (kBlockN / kThreadN)

__global__ void __launch_bounds__(kThreads)
    sgemm_64x64(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
                int M, int N, int K) {
  __shared__ float As[kBlockK][kBlockM];
  __shared__ float Bs[kBlockK][kBlockN];
  const int tid = static_cast<int>(threadIdx.x);
  const int tx = tid % (kBlockN / kThreadN);  // 0..15: column group
  const int ty = tid / (kBlockN / kThreadN);  // 0..15: row group
  const int m0 = static_cast<int>(blockIdx.y) * kBlockM;
  const int n0 = static_cast<int>(blockIdx.x) * kBlockN;

  float acc[kThreadM][kThreadN] = {};
  for (int k0 = 0; k0 < K; k0 += kBlockK) {
    // 64 x 8 elements of A and 8 x 64 of B: two of each per thread.
#pragma unroll
    for (int l = 0; l < 2; ++l) {
      const int idx = tid + l * kThreads;
      const int ar = idx / kBlockK, ac = idx % kBlockK;
      As[ac][ar] = A[(m0 + ar) * K + k0 + ac];
      const int br = idx / kBlockN, bc = idx % kBlockN;
      Bs[br][bc] = B[(k0 + br) * N + n0 + bc];
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < kBlockK; ++k) {
      float a[kThreadM], b[kThreadN];
#pragma unroll
      for (int i = 0; i < kThreadM; ++i) a[i] = As[k][ty * kThreadM + i];
#pragma unroll
      for (int j = 0; j < kThreadN; ++j) b[j] = Bs[k][tx * kThreadN + j];
#pragma unroll
      for (int i = 0; i < kThreadM; ++i) {
#pragma unroll
        for (int j = 0; j < kThreadN; ++j) acc[i][j] += a[i] * b[j];
      }
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < kThreadM; ++i) {
#pragma unroll
    for (int j = 0; j < kThreadN; ++j) {
      C[(m0 + ty * kThreadM + i) * N + n0 + tx * kThreadN + j] = acc[i][j];
    }
  }
}
