// cg_tiles.cu - cg::reduce over thread_block_tile<N> (N < 32) of data stored interleaved in shared
// memory: tile t's lane r reads s[r * tiles + t], the layout a block gets when each thread stored
// its values in thread order and each tile reduces a column. Blocks of 256 threads.
//
// Exercises:
//   tile16_columns: 16-lane tiles, 16 tiles, float: a warp's two tiles read words 16 r + t and
//                   16 r + t + 1 (2 words per bank row... the banks repeat every 2 lanes).
//   tile8_columns:  8-lane tiles, 32 tiles, float: stride 32 words within a tile (8-way per tile).
//   tile16_double:  16-lane tiles of doubles, stride 16 doubles.
//   tile4_rows:     4-lane tiles reading 4 consecutive words per tile, reduced twice (4 loads).
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

namespace cg = cooperative_groups;

template <int N, typename T>
__device__ void columns(T* s, const T* in, T* out) {
  cg::thread_block block = cg::this_thread_block();
  s[block.thread_rank()] = in[blockIdx.x * 256 + block.thread_rank()];
  block.sync();
  cg::thread_block_tile<N> tile = cg::tiled_partition<N>(block);
  const unsigned tiles = 256 / N;
  T v = s[tile.thread_rank() * tiles + tile.meta_group_rank()];
  v = cg::reduce(tile, v, cg::plus<T>());
  if (tile.thread_rank() == 0) out[blockIdx.x * tiles + tile.meta_group_rank()] = v;
}

__global__ void tile16_columns(const float* in, float* out) {
  __shared__ float s[256];
  columns<16>(s, in, out);
}

__global__ void tile8_columns(const float* in, float* out) {
  __shared__ float s[256];
  columns<8>(s, in, out);
}

__global__ void tile16_double(const double* in, double* out) {
  __shared__ double s[256];
  columns<16>(s, in, out);
}

__global__ void tile4_rows(const float* in, float* out) {
  __shared__ float s[1024];
  cg::thread_block block = cg::this_thread_block();
  for (int i = block.thread_rank(); i < 1024; i += 256) s[i] = in[blockIdx.x * 1024 + i];
  block.sync();
  cg::thread_block_tile<4> tile = cg::tiled_partition<4>(block);
  float acc = 0.0f;
  for (int j = 0; j < 4; ++j) {
    float v = s[tile.meta_group_rank() * 4 + tile.thread_rank() + 256 * j];
    acc += cg::reduce(tile, v, cg::plus<float>());
  }
  if (tile.thread_rank() == 0) out[blockIdx.x * 64 + tile.meta_group_rank()] = acc;
}
