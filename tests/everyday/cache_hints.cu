// cache_hints.cu - the 32x32 tiled matrix transpose (block 32x8, each thread 4 elements), written
// with the cache-hint intrinsics: rows of the input read with __ldcs (streaming) or __ldcg
// (cache at L2 only), the output written with __stcs (streaming store).
//
// Exercises: the padded tile `float tile[32][33]` (row stores and column reads both conflict-free)
// and the same kernel with `float tile[32][32]`, whose column read tile[tx][ty + j] is a 32-way
// conflict (lane tx reads word 32 tx + c: all in one bank). nvcc (sm_90): 4 STS and 4 LDS of
// 4 bytes per thread in both kernels (the column reads are 8 rows apart: no merging).
//
// Every warp executes every shared instruction with all 32 lanes active; the matrix is
// width x height with both multiples of 32 (no bounds guards).

constexpr int kTile = 32;
constexpr int kRows = 8;  // blockDim.y: each thread moves kTile / kRows elements

// out = in^T: in is height x width and out width x height, both row-major.
__global__ void transpose_padded(const float* __restrict__ in, float* __restrict__ out, int width,
                                 int height) {
  __shared__ float tile[kTile][kTile + 1];
  const int x = static_cast<int>(blockIdx.x) * kTile + static_cast<int>(threadIdx.x);
  const int y = static_cast<int>(blockIdx.y) * kTile + static_cast<int>(threadIdx.y);
  for (int j = 0; j < kTile; j += kRows) {
    // Alternate the two load hints by row: the hints change caching, not the shared pattern.
    const float* p = &in[(y + j) * width + x];
    tile[threadIdx.y + j][threadIdx.x] = (j / kRows) % 2 == 0 ? __ldcs(p) : __ldcg(p);
  }
  __syncthreads();
  const int tx = static_cast<int>(blockIdx.y) * kTile + static_cast<int>(threadIdx.x);
  const int ty = static_cast<int>(blockIdx.x) * kTile + static_cast<int>(threadIdx.y);
  for (int j = 0; j < kTile; j += kRows) {
    __stcs(&out[(ty + j) * height + tx], tile[threadIdx.x][threadIdx.y + j]);
  }
}

// The same transpose with an unpadded tile: the column read is a 32-way conflict.
__global__ void transpose_unpadded(const float* __restrict__ in, float* __restrict__ out, int width,
                                   int height) {
  __shared__ float tile[kTile][kTile];
  const int x = static_cast<int>(blockIdx.x) * kTile + static_cast<int>(threadIdx.x);
  const int y = static_cast<int>(blockIdx.y) * kTile + static_cast<int>(threadIdx.y);
  for (int j = 0; j < kTile; j += kRows) {
    const float* p = &in[(y + j) * width + x];
    tile[threadIdx.y + j][threadIdx.x] = (j / kRows) % 2 == 0 ? __ldcs(p) : __ldcg(p);
  }
  __syncthreads();
  const int tx = static_cast<int>(blockIdx.y) * kTile + static_cast<int>(threadIdx.x);
  const int ty = static_cast<int>(blockIdx.x) * kTile + static_cast<int>(threadIdx.y);
  for (int j = 0; j < kTile; j += kRows) {
    __stcs(&out[(ty + j) * height + tx], tile[threadIdx.x][threadIdx.y + j]);
  }
}
