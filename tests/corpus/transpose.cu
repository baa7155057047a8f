// Corpus: tiled matrix transposes, out = in^T for an n x n row-major matrix, 32x32 tiles, blocks
// of 32x8 threads (each thread moves 4 elements). n need not be a multiple of 32.
//   build/bin/banksim profile tests/corpus/transpose.cu --kernel transpose_naive_tile
//     --grid 2,2 --block 32,8 --arg 4096 --arg 4096 --arg 64
constexpr int kTile = 32;
constexpr int kRows = 8;

// tile[32][32]: the read tile[tx][ty + j] is a column: word 32*tx + ty + j, all lanes in one bank
__global__ void transpose_naive_tile(float* out, const float* in, int n) {
  __shared__ float tile[kTile][kTile];
  const int x = blockIdx.x * kTile + threadIdx.x;
  const int y = blockIdx.y * kTile + threadIdx.y;
  for (int j = 0; j < kTile; j += kRows) {
    if (x < n && y + j < n)
      tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * n + x];  // @naive_store
  }
  __syncthreads();
  const int ox = blockIdx.y * kTile + threadIdx.x;
  const int oy = blockIdx.x * kTile + threadIdx.y;
  for (int j = 0; j < kTile; j += kRows) {
    if (ox < n && oy + j < n)
      out[(oy + j) * n + ox] = tile[threadIdx.x][threadIdx.y + j];  // @naive_load
  }
}

// The padding as a template parameter: transpose_tile<0> conflicts, transpose_tile<1> does not.
template <int kPad>
__global__ void transpose_tile(float* out, const float* in, int n) {
  __shared__ float tile[kTile][kTile + kPad];
  const int x = blockIdx.x * kTile + threadIdx.x;
  const int y = blockIdx.y * kTile + threadIdx.y;
  for (int j = 0; j < kTile; j += kRows) {
    if (x < n && y + j < n) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * n + x];
  }
  __syncthreads();
  const int ox = blockIdx.y * kTile + threadIdx.x;
  const int oy = blockIdx.x * kTile + threadIdx.y;
  for (int j = 0; j < kTile; j += kRows) {
    if (ox < n && oy + j < n)
      out[(oy + j) * n + ox] = tile[threadIdx.x][threadIdx.y + j];  // @template_load
  }
}

// Every thread of a 32x32 block moves one element (used by the speed benchmark, 32x32 blocks).
__global__ void transpose_padded_32x32(float* out, const float* in, int n) {
  __shared__ float tile[kTile][kTile + 1];
  const int x = blockIdx.x * kTile + threadIdx.x;
  const int y = blockIdx.y * kTile + threadIdx.y;
  if (x < n && y < n) tile[threadIdx.y][threadIdx.x] = in[y * n + x];
  __syncthreads();
  const int ox = blockIdx.y * kTile + threadIdx.x;
  const int oy = blockIdx.x * kTile + threadIdx.y;
  if (ox < n && oy < n) out[oy * n + ox] = tile[threadIdx.x][threadIdx.y];
}
