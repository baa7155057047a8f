// Lessons 02 and 03 - shared-memory throughput demos for the GPU (gpu/course_bench.cu times
// them): every lane reads 4-byte words in a loop, so shared memory is the bottleneck and the
// time follows the wavefront count.
//   build/bin/banksim profile lessons/03-strides/stride_throughput.cu
//       --kernel shared_stride_throughput --block 1024 --arg 1024 --arg 2 --arg 32
constexpr int kWords = 2048;  // 8 KiB
constexpr int kUnroll = 16;

// Lane l reads word l*stride + 32u (+512 every other round): bank (l*stride) % 32 for every read,
// so each request costs gcd(stride, 32) wavefronts. `volatile` keeps every load a separate
// 4-byte access (no hoisting, no merging into wider loads).
//! [shared_stride_throughput]
__global__ void shared_stride_throughput(float* out, int stride, int iters) {
  __shared__ float s[kWords];
  for (int i = threadIdx.x; i < kWords; i += blockDim.x) s[i] = static_cast<float>(i);
  __syncthreads();
  const int lane = threadIdx.x % 32;
  volatile float* p = s + lane * stride;
  float acc0 = 0.0f, acc1 = 0.0f, acc2 = 0.0f, acc3 = 0.0f;
  for (int it = 0; it < iters; it += kUnroll) {
    volatile float* q = p + ((it / kUnroll) & 1) * 512;
#pragma unroll
    for (int u = 0; u < kUnroll; u += 4) {
      acc0 += q[32 * u];
      acc1 += q[32 * (u + 1)];
      acc2 += q[32 * (u + 2)];
      acc3 += q[32 * (u + 3)];
    }
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc0 + acc1 + acc2 + acc3;
}
//! [shared_stride_throughput]

// Block (32, 32): warp y reads column (y + i) % 32 of the tile, lane x its row x.
//! [shared_column_throughput]
template <int kPad>
__global__ void shared_column_throughput(float* out, int iters) {
  __shared__ float tile[32][32 + kPad];
  tile[threadIdx.y][threadIdx.x] = static_cast<float>(threadIdx.y * 32 + threadIdx.x);
  __syncthreads();
  volatile float(*t)[32 + kPad] = tile;
  float acc = 0.0f;
  for (int it = 0; it < iters; it += 8) {
#pragma unroll
    for (int u = 0; u < 8; ++u) acc += t[threadIdx.x][(threadIdx.y + it + u) % 32];
  }
  out[(blockIdx.x * 32 + threadIdx.y) * 32 + threadIdx.x] = acc;
}
//! [shared_column_throughput]
