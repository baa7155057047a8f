// Lesson 04 - the padding fix: the transposes before the fix.
// transpose_global: no shared memory, writes strided by n (uncoalesced).
// transpose_tiled_naive: coalesced both ways through tile[32][32]; its column read is 32-way.
//   build/bin/banksim profile lessons/04-padding-transpose/transpose_naive.cu
//       --kernel transpose_tiled_naive --grid 2,2 --block 32,8 --arg 4096 --arg 4096 --arg 64
constexpr int kTile = 32;
constexpr int kRows = 8;

//! [transpose_global]
__global__ void transpose_global(float* out, const float* in, int n) {
  const int x = blockIdx.x * kTile + threadIdx.x;
  const int y = blockIdx.y * kTile + threadIdx.y;
  for (int j = 0; j < kTile; j += kRows) {
    if (x < n && y + j < n) out[x * n + y + j] = in[(y + j) * n + x];
  }
}
//! [transpose_global]

//! [transpose_tiled_naive]
__global__ void transpose_tiled_naive(float* out, const float* in, int n) {
  __shared__ float tile[kTile][kTile];
  const int x = blockIdx.x * kTile + threadIdx.x;
  const int y = blockIdx.y * kTile + threadIdx.y;
  for (int j = 0; j < kTile; j += kRows) {
    if (x < n && y + j < n) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * n + x];
  }
  __syncthreads();
  const int ox = blockIdx.y * kTile + threadIdx.x;
  const int oy = blockIdx.x * kTile + threadIdx.y;
  for (int j = 0; j < kTile; j += kRows) {
    // lane tx reads word 32tx + ty + j: bank (ty + j) % 32 for all 32 lanes
    if (ox < n && oy + j < n) out[(oy + j) * n + ox] = tile[threadIdx.x][threadIdx.y + j];
  }
}
//! [transpose_tiled_naive]
