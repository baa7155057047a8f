// A padded tiled transpose (rows of 33 floats), banksim's reference for a conflict-free column
// read: tile[tx][ty + j] is word 33*tx + ty + j, in bank (tx + ty + j) % 32: 32 distinct banks.
// Kept with the tests, not the lessons: it is exercise 04's answer.
//   build/bin/banksim profile tests/corpus/transpose_padded.cu
//       --kernel transpose_padded --grid 2,2 --block 32,8 --arg 4096 --arg 4096 --arg 64
constexpr int kTile = 32;
constexpr int kRows = 8;

//! [transpose_padded]
__global__ void transpose_padded(float* out, const float* in, int n) {
  __shared__ float tile[kTile][kTile + 1];
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
      out[(oy + j) * n + ox] = tile[threadIdx.x][threadIdx.y + j];  // @padded_load
  }
}
//! [transpose_padded]
