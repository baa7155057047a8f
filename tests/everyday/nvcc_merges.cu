// nvcc_merges.cu - source written as 4-byte shared accesses that nvcc (ptxas) turns into wider
// LDS.64 / LDS.128 instructions when it can prove the alignment. The hardware then sees fewer,
// wider requests, whose wavefronts differ from those of the source-level 4-byte accesses.
//
// What nvcc 13.0 emitted for sm_90 (-O3; nvdisasm -c -gi), per case:
//   (a) gemm_abt_pad2: C = A B^T through 32 x 32 tiles (block 32 x 32), inner loop
//       acc += as[ty][kk] * bs[tx][kk], kk = 0..31 unrolled.
//       as[32][32] (128-byte rows): 8 x LDS.128 per thread (4 k at once; ty is one value per warp:
//         broadcast, 1 wavefront).
//       bs[32][34] (136-byte rows, 8-byte aligned only): 16 x LDS.64 per thread (2 k at once;
//         lane tx at word 34 tx + kk).
//     gemm_abt_pad1, the same with bs[32][33] (132-byte rows): as still 8 x LDS.128, bs 32 scalar
//       LDS (4-byte; conflict-free as in the lessons).
//   (b) stride2_pairs: s[2 t] + s[2 t + 1] on one line: one LDS.64 (lane t reads 8 bytes at 8 t:
//       2 wavefronts, conflict-free); q[2 t + 1] + q[(2 t + 2) % 512] (the pair is not 8-byte
//       aligned): two scalar LDS (lanes 2 words apart: 2-way each).
//   (c) row_quads: a loop copying row[4 lane + i], i = 0..3, into float r[4], then summing them:
//       one LDS.128 (512 bytes per warp: 4 wavefronts; as 4-byte accesses, lanes 4 words apart
//       are 4-way); the same with row[lane + i] (a sliding window, alignment unknown): four
//       scalar LDS (conflict-free).
// Stores in all kernels are scalar STS (consecutive lanes, conflict-free).
//
// Every warp executes every shared instruction with all 32 lanes active; shared indices depend
// only on thread and block indices. Matrix sizes are multiples of 32.

constexpr int kTile = 32;

// (a) C = A B^T: A is m x k, B is n x k, C is m x n, row-major; block (32, 32).
__global__ void gemm_abt_pad2(const float* __restrict__ a, const float* __restrict__ b,
                              float* __restrict__ c, int m, int n, int k) {
  __shared__ float as[kTile][kTile];
  __shared__ float bs[kTile][kTile + 2];
  const int tx = static_cast<int>(threadIdx.x), ty = static_cast<int>(threadIdx.y);
  const int row = static_cast<int>(blockIdx.y) * kTile + ty;   // row of C and A
  const int col = static_cast<int>(blockIdx.x) * kTile + tx;   // column of C
  const int brow = static_cast<int>(blockIdx.x) * kTile + ty;  // row of B this thread loads
  float acc = 0.0f;
  for (int k0 = 0; k0 < k; k0 += kTile) {
    as[ty][tx] = a[row * k + k0 + tx];
    bs[ty][tx] = b[brow * k + k0 + tx];
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < kTile; ++kk) acc += as[ty][kk] * bs[tx][kk];
    __syncthreads();
  }
  c[row * n + col] = acc;
}

// (a') The same with the classic padding of one float: bs reads stay 4 bytes wide.
__global__ void gemm_abt_pad1(const float* __restrict__ a, const float* __restrict__ b,
                              float* __restrict__ c, int m, int n, int k) {
  __shared__ float as[kTile][kTile];
  __shared__ float bs[kTile][kTile + 1];
  const int tx = static_cast<int>(threadIdx.x), ty = static_cast<int>(threadIdx.y);
  const int row = static_cast<int>(blockIdx.y) * kTile + ty;
  const int col = static_cast<int>(blockIdx.x) * kTile + tx;
  const int brow = static_cast<int>(blockIdx.x) * kTile + ty;
  float acc = 0.0f;
  for (int k0 = 0; k0 < k; k0 += kTile) {
    as[ty][tx] = a[row * k + k0 + tx];
    bs[ty][tx] = b[brow * k + k0 + tx];
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < kTile; ++kk) acc += as[ty][kk] * bs[tx][kk];
    __syncthreads();
  }
  c[row * n + col] = acc;
}

// (b) Interleaved pairs (e.g. complex numbers): block of 256 threads, 2 outputs per thread. The
// aligned pairs come from s, the shifted pairs from q (a second array, so that nvcc cannot reuse
// one line's loads on the other); q's last pair wraps around to q[0].
__global__ void stride2_pairs(const float* __restrict__ in, float* __restrict__ out) {
  __shared__ float s[2 * 256];
  __shared__ float q[2 * 256];
  const int t = static_cast<int>(threadIdx.x);
  const float* src = in + blockIdx.x * 2 * 256;
  s[t] = src[t];
  s[t + 256] = src[t + 256];
  q[t] = src[t];
  q[t + 256] = src[t + 256];
  __syncthreads();
  const float aligned = s[2 * t] + s[2 * t + 1];              // one LDS.64
  const float shifted = q[2 * t + 1] + q[(2 * t + 2) % 512];  // two scalar LDS
  out[blockIdx.x * 2 * 256 + 2 * t] = aligned;
  out[blockIdx.x * 2 * 256 + 2 * t + 1] = shifted;
}

// (c) Four consecutive floats of a row into registers: every warp owns one 160-float row.
__global__ void row_quads(const float* __restrict__ in, float* __restrict__ out) {
  __shared__ float rows[8][4 * 32 + 32];
  const int lane = static_cast<int>(threadIdx.x % 32), warp = static_cast<int>(threadIdx.x / 32);
  const float* src = in + (blockIdx.x * 8 + warp) * 160;
#pragma unroll
  for (int i = 0; i < 5; ++i) rows[warp][lane + 32 * i] = src[lane + 32 * i];
  __syncwarp();
  float r[4];
#pragma unroll
  for (int i = 0; i < 4; ++i) r[i] = rows[warp][4 * lane + i];  // LDS.128
  const float quad = r[0] + r[1] + r[2] + r[3];
  float w[4];
#pragma unroll
  for (int i = 0; i < 4; ++i) w[i] = rows[warp][lane + i];  // 4 x LDS
  const float window = w[0] + w[1] + w[2] + w[3];
  out[blockIdx.x * blockDim.x + threadIdx.x] = quad - window;
}
