// Lesson 02 - the column read: the conflicting baseline of exercise 02.
// out (32 x n) = in^T for in of n x 32; block (32, 32) stages 32 rows in tile[32][32].
//   build/bin/banksim profile lessons/02-column-read/column_read.cu
//       --kernel transpose_n_by_32_naive --grid 2 --block 32,32 --arg 2048 --arg 2048 --arg 64
constexpr int kTile = 32;

//! [transpose_n_by_32_naive]
__global__ void transpose_n_by_32_naive(float* out, const float* in, int n) {
  __shared__ float tile[kTile][kTile];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.x * kTile + ty;
  if (row < n) tile[ty][tx] = in[row * kTile + tx];  // lane tx: word 32ty+tx, bank tx
  __syncthreads();
  const int col = blockIdx.x * kTile + tx;
  if (col < n) out[ty * n + col] = tile[tx][ty];  // lane tx: word 32tx+ty, bank ty: 32-way
}
//! [transpose_n_by_32_naive]
