// coop_groups.cu - block reductions written with cooperative groups, in the style of the CUDA
// programming guide and the "faster parallel reductions" pattern: each 32-thread tile reduces in
// registers (tile.shfl_down or cg::reduce), lane 0 of every tile stores its partial sum in
// `__shared__ float partial[32]` at tile.meta_group_rank(), block.sync(), then the partials are
// read back and reduced again.
//
// Exercises: one 4-byte store per warp with a single active lane (lane 0; distinct words, so
// conflict-free), then a 4-byte read of partial[lane] by the first meta_group_size() lanes of
// EVERY warp (every warp computes the block total, as kernels that need it in all threads do, e.g.
// a mean to subtract) - consecutive words, conflict-free. nvcc (sm_90): STS / LDS, 4 bytes each.
//
// Every warp executes every shared instruction with at least one active lane; shared indices
// depend only on thread and block indices.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

namespace cg = cooperative_groups;

// Sums a tile's values with a shfl_down tree; lane 0 gets the total.
__device__ float tile_sum(cg::thread_block_tile<32> tile, float v) {
  for (int d = 16; d > 0; d /= 2) v += tile.shfl_down(v, d);
  return v;
}

// out[blockIdx.x] = sum of the block's inputs (n a multiple of blockDim.x, blockDim.x <= 1024).
__global__ void block_sum(const float* in, float* out, int n) {
  __shared__ float partial[32];
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
  const int i = static_cast<int>(blockIdx.x * blockDim.x + block.thread_rank());
  float v = i < n ? in[i] : 0.0f;
  v = tile_sum(tile, v);
  if (tile.thread_rank() == 0) partial[tile.meta_group_rank()] = v;
  block.sync();
  // Every tile reads all partials (its lanes 0 .. meta_group_size() - 1) and adds them up.
  const unsigned lane = tile.thread_rank();
  float w = lane < tile.meta_group_size() ? partial[lane] : 0.0f;
  w = cg::reduce(tile, w, cg::plus<float>());
  if (block.thread_rank() == 0) out[blockIdx.x] = w;
}

// out[i] = in[i] - mean of the block's inputs: every thread needs the block sum.
__global__ void subtract_block_mean(const float* in, float* out, int n) {
  __shared__ float partial[32];
  cg::thread_block block = cg::this_thread_block();
  auto tile = cg::tiled_partition<32>(block);
  const int i = static_cast<int>(blockIdx.x * blockDim.x + block.thread_rank());
  const float x = i < n ? in[i] : 0.0f;
  const float s = cg::reduce(tile, x, cg::plus<float>());
  if (tile.thread_rank() == 0) partial[tile.meta_group_rank()] = s;
  block.sync();
  float w = tile.thread_rank() < tile.meta_group_size() ? partial[tile.thread_rank()] : 0.0f;
  w = tile_sum(tile, w);
  const float total = tile.shfl(w, 0);
  if (i < n) out[i] = x - total / static_cast<float>(block.size());
}
