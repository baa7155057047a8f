// Lesson 06 - XOR swizzle: the float4 transpose without the swizzle (baseline of exercise 06),
// and a 4-byte swizzled 32x32 tile read by row and by column.
//   build/bin/banksim profile lessons/06-xor-swizzle/transpose_float4_naive.cu
//       --kernel transpose_float4_naive --grid 1,1 --block 8,32 --arg 256 --arg 256 --arg 16
constexpr int kRows = 32;
constexpr int kCols = 8;
constexpr int kWarp = 32;

//! [transpose_float4_naive]
__global__ void transpose_float4_naive(float4* out, const float4* in, int n) {
  __shared__ float4 tile[kRows][kCols];
  const int r = blockIdx.y * kRows + threadIdx.y;
  const int c = blockIdx.x * kCols + threadIdx.x;
  if (r < n && c < n) tile[threadIdx.y][threadIdx.x] = in[r * n + c];
  __syncthreads();
  const int linear = threadIdx.y * kCols + threadIdx.x;
  const int tile_col = linear / kRows;
  const int tile_row = linear % kRows;
  const int out_r = blockIdx.x * kCols + tile_col;
  const int out_c = blockIdx.y * kRows + tile_row;
  // a phase (8 lanes) reads chunk tile_col of 8 consecutive rows: the same 4 banks, 8-way
  if (out_r < n && out_c < n) out[out_r * n + out_c] = tile[tile_row][tile_col];
}
//! [transpose_float4_naive]

//! [swizzled_tile]
// tile[r][c ^ r]: lane t reads element (t, col) for the column and (row, t) for the row.
__global__ void swizzled_tile(float* out, int row, int col) {
  __shared__ float tile[kWarp][kWarp];
  const int t = threadIdx.x;
  for (int r = 0; r < kWarp; ++r) tile[r][t ^ r] = static_cast<float>(kWarp * r + t);
  __syncthreads();
  const float down = tile[t][col ^ t];  // word 32t + (col ^ t): bank col ^ t, all distinct
  const float across = tile[row][t ^ row];
  out[t] = down + across;
}
//! [swizzled_tile]
