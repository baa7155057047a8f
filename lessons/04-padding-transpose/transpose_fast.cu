// Lesson 04, going further - the padded transpose tuned for bandwidth: tile size, threads per
// tile and read-only loads as template parameters, so gpu/course_bench.cu can time the variants
// against cudaMemcpy on an 8192 x 8192 matrix. Rows of kDim + 1 words: with kDim = 64, element
// (r, c) is word 65r + c, so a column read (lane t reads row t) hits bank (t + c) % 32.
//   build/bin/banksim profile lessons/04-padding-transpose/transpose_fast.cu
//       --kernel 'transpose_padded_tuned<64,8>' --grid 2,2 --block 64,8 --arg 16384 --arg 16384
//       --arg 128
//! [transpose_padded_tuned]
template <int kDim, int kRows>
__global__ void transpose_padded_tuned(float* __restrict__ out, const float* __restrict__ in,
                                       int n) {
  __shared__ float tile[kDim][kDim + 1];
  const int x = blockIdx.x * kDim + threadIdx.x;
  const int y = blockIdx.y * kDim + threadIdx.y;
#pragma unroll
  for (int j = 0; j < kDim; j += kRows) {
    if (x < n && y + j < n) tile[threadIdx.y + j][threadIdx.x] = __ldg(&in[(y + j) * n + x]);
  }
  __syncthreads();
  const int ox = blockIdx.y * kDim + threadIdx.x;
  const int oy = blockIdx.x * kDim + threadIdx.y;
#pragma unroll
  for (int j = 0; j < kDim; j += kRows) {
    if (ox < n && oy + j < n) out[(oy + j) * n + ox] = tile[threadIdx.x][threadIdx.y + j];
  }
}
//! [transpose_padded_tuned]
