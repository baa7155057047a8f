// Lesson 04, going further - the padded transpose tuned for bandwidth: tile size, threads per
// tile and read-only loads as template parameters, so gpu/course_bench.cu can time the variants
// against cudaMemcpy on an 8192 x 8192 matrix. (Same bank arithmetic as the exercise: rows of
// kTile + 1 words, so a column read hits bank (r + c) % 32.)
//   build/bin/banksim profile lessons/04-padding-transpose/transpose_fast.cu
//       --kernel 'transpose_padded_tuned<64,8>' --grid 2,2 --block 64,8 --arg 16384 --arg 16384
//       --arg 128
//! [transpose_padded_tuned]
template <int kTile, int kRows>
__global__ void transpose_padded_tuned(float* __restrict__ out, const float* __restrict__ in,
                                       int n) {
  __shared__ float tile[kTile][kTile + 1];
  const int x = blockIdx.x * kTile + threadIdx.x;
  const int y = blockIdx.y * kTile + threadIdx.y;
#pragma unroll
  for (int j = 0; j < kTile; j += kRows) {
    if (x < n && y + j < n) tile[threadIdx.y + j][threadIdx.x] = __ldg(&in[(y + j) * n + x]);
  }
  __syncthreads();
  const int ox = blockIdx.y * kTile + threadIdx.x;
  const int oy = blockIdx.x * kTile + threadIdx.y;
#pragma unroll
  for (int j = 0; j < kTile; j += kRows) {
    if (ox < n && oy + j < n) out[(oy + j) * n + ox] = tile[threadIdx.x][threadIdx.y + j];
  }
}
//! [transpose_padded_tuned]
