// cuda_barrier.cu - cuda::barrier of a block with cuda::memcpy_async, as double-buffered GEMMs
// stage their tiles: each thread copies 16 bytes of the next tile while the block works on the
// current one, then the block's barrier publishes the copy.
#include <cooperative_groups.h>
#include <cuda/barrier>

namespace cg = cooperative_groups;

// A __shared__ cuda::barrier has a constructor nvcc warns about (the CUDA programming guide's
// examples silence it the same way); init() sets it up.
#pragma nv_diag_suppress static_var_with_dynamic_init

// out[t] = the sum over `tiles` tiles of 4 * 64 floats of the float4 at row t of the tile
// reflected (thread t reads what thread 63 - t copied).
__global__ void staged_sum(float* out, const float4* in, int tiles) {
  __shared__ float4 tile[2][64];
  __shared__ cuda::barrier<cuda::thread_scope::thread_scope_block> bar;
  auto block = cg::this_thread_block();
  const unsigned t = block.thread_rank();
  if (t == 0) init(&bar, block.size());
  __syncthreads();
  cuda::memcpy_async(&tile[0][t], &in[t], cuda::aligned_size_t<16>(sizeof(float4)), bar);
  float sum = 0.0f;
  for (int k = 0; k < tiles; ++k) {
    bar.arrive_and_wait();  // tile k is in
    if (k + 1 < tiles) {
      cuda::memcpy_async(&tile[(k + 1) % 2][t], &in[(k + 1) * 64 + t], sizeof(float4), bar);
    }
    const float4 v = tile[k % 2][63 - t];  // @reflected
    sum += v.x + v.y + v.z + v.w;
    bar.arrive_and_wait();  // done with tile k before it is overwritten
  }
  out[t] = sum;
}

// A read of another thread's copy before the barrier: a race.
__global__ void read_before_wait(float* out, const float4* in) {
  __shared__ float4 tile[64];
  __shared__ cuda::barrier<cuda::thread_scope::thread_scope_block> bar;
  const unsigned t = threadIdx.x;
  if (t == 0) init(&bar, blockDim.x);
  __syncthreads();
  cuda::memcpy_async(&tile[t], &in[t], sizeof(float4), bar);
  out[t] = tile[63 - t].x;  // @early
  bar.arrive_and_wait();
}

// A barrier for half the block: banksim stops with a message.
__global__ void half_block_barrier(float* out) {
  __shared__ cuda::barrier<cuda::thread_scope::thread_scope_block> bar;
  if (threadIdx.x == 0) init(&bar, blockDim.x / 2);
  __syncthreads();
  if (threadIdx.x < blockDim.x / 2) bar.arrive_and_wait();
  out[threadIdx.x] = 1.0f;
}

// The group form (the block copies one 1 KiB tile together) and the split arrive/wait.
__global__ void group_copy(float* out, const float4* in) {
  __shared__ float4 tile[64];
  __shared__ cuda::barrier<cuda::thread_scope::thread_scope_block> bar;
  auto block = cg::this_thread_block();
  if (block.thread_rank() == 0) init(&bar, block.size());
  block.sync();
  cuda::memcpy_async(block, tile, in, sizeof(tile), bar);
  auto token = bar.arrive();
  bar.wait(std::move(token));
  const float4 v = tile[63 - block.thread_rank()];  // @group_read
  out[block.thread_rank()] = v.x + v.y + v.z + v.w;
}
