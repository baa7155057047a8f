// Lesson 06 - the XOR swizzle on a float tile: element (r, c) lives at tile[r][c ^ r], so the
// column read tile[tx][c ^ tx] hits bank (c ^ tx) % 32: 32 distinct banks without a pad word.
//   build/bin/banksim profile lessons/06-xor-swizzle/transpose_swizzled.cu
//       --kernel transpose_swizzled --grid 2,2 --block 32,8 --arg 4096 --arg 4096 --arg 64
constexpr int kTile = 32;
constexpr int kRows = 8;

//! [transpose_swizzled]
__global__ void transpose_swizzled(float* out, const float* in, int n) {
  __shared__ float tile[kTile][kTile];
  const int x = blockIdx.x * kTile + threadIdx.x;
  const int y = blockIdx.y * kTile + threadIdx.y;
  for (int j = 0; j < kTile; j += kRows) {
    const int r = threadIdx.y + j;
    if (x < n && y + j < n) tile[r][threadIdx.x ^ r] = in[(y + j) * n + x];
  }
  __syncthreads();
  const int ox = blockIdx.y * kTile + threadIdx.x;
  const int oy = blockIdx.x * kTile + threadIdx.y;
  for (int j = 0; j < kTile; j += kRows) {
    const int c = threadIdx.y + j;
    if (ox < n && oy + j < n)
      out[(oy + j) * n + ox] = tile[threadIdx.x][c ^ threadIdx.x];  // @swizzled_load
  }
}
//! [transpose_swizzled]
