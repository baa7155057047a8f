// coop_groups.cu - kernels written with cooperative groups, as public CUDA code is: they run
// under banksim unchanged (banksim/include/banksim/cuda/cooperative_groups.h).
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cooperative_groups/reduce.h>

namespace cg = cooperative_groups;

// A block sum: each warp reduces with cg::reduce, warp 0 adds the partial sums with shfl_down.
__global__ void block_sum(float* out, const float* in, int n) {
  __shared__ float partial[32];
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  const int i = static_cast<int>(blockIdx.x * blockDim.x + block.thread_rank());
  float v = i < n ? in[i] : 0.0f;
  v = cg::reduce(warp, v, cg::plus<float>());
  if (warp.thread_rank() == 0) partial[warp.meta_group_rank()] = v;  // @cg_partial
  block.sync();
  if (warp.meta_group_rank() == 0) {
    float w = warp.thread_rank() < warp.meta_group_size() ? partial[warp.thread_rank()] : 0.0f;
    for (unsigned d = 16; d > 0; d /= 2) w += warp.shfl_down(w, d);
    if (warp.thread_rank() == 0) out[blockIdx.x] = w;
  }
}

// Tiles of 8: each tile's maximum and the ballot of its values above 10.
__global__ void tile8_max(int* out) {
  auto tile = cg::tiled_partition<8>(cg::this_thread_block());
  const int v = static_cast<int>(threadIdx.x * 7 % 23);
  const int m = cg::reduce(tile, v, cg::greater<int>());
  const unsigned b = tile.ballot(v > 10);
  tile.sync();
  out[threadIdx.x] = m * 1000 + static_cast<int>(b);
}

// Streaming loads and stores (cache hints): the same values as plain accesses.
__global__ void streaming_copy(float* out, const float* in) {
  const unsigned i = threadIdx.x;
  __stcs(&out[i], __ldcs(&in[i]) + __ldcg(&in[i]) + __ldg(&in[i]));
}

// A tile staged with cg::memcpy_async (16-byte chunks, one per thread per round), made visible
// by cg::wait, then summed down each column.
__global__ void async_stage(float* out, const float* in) {
  __shared__ float tile[32 * 32];
  cg::thread_block block = cg::this_thread_block();
  cg::memcpy_async(block, tile, in + blockIdx.x * 1024, sizeof(float) * 1024);  // @cg_async
  cg::wait(block);
  const int t = static_cast<int>(threadIdx.x);
  float sum = 0.0f;
  for (int r = 0; r < 32; ++r) sum += tile[r * 32 + t];  // @cg_async_read
  out[blockIdx.x * 32 + t] = sum;
}

// The same copy read before cg::wait: a race, as on the GPU.
__global__ void async_no_wait(float* out, const float* in) {
  __shared__ float tile[32 * 32];
  cg::thread_block block = cg::this_thread_block();
  cg::memcpy_async(block, tile, in, sizeof(float) * 1024);
  out[threadIdx.x] = tile[(threadIdx.x + 32) % 1024];  // @cg_async_race
  cg::wait(block);
}

// A generic reduction over any group (cg::thread_group), called with the block, a tile<16> and
// a run-time tiled_partition(block, 8): each writes the sum of its ranks.
__device__ int rank_sum(cg::thread_group g, int* x) {
  int val = static_cast<int>(g.thread_rank());
  const int lane = static_cast<int>(g.thread_rank());
  for (int i = static_cast<int>(g.size()) / 2; i > 0; i /= 2) {
    x[lane] = val;  // @cg_group_store
    g.sync();
    if (lane < i) val += x[lane + i];
    g.sync();
  }
  return val;
}
__global__ void group_sums(int* out) {
  __shared__ int work[64];
  cg::thread_block block = cg::this_thread_block();
  const int t = static_cast<int>(block.thread_rank());
  const int whole = rank_sum(block, work);
  block.sync();
  cg::thread_block_tile<16> tile16 = cg::tiled_partition<16>(block);
  const int base16 = t - static_cast<int>(tile16.thread_rank());
  const int s16 = rank_sum(tile16, work + base16);
  block.sync();
  cg::thread_group tile8 = cg::tiled_partition(block, 8);
  const int base8 = t - static_cast<int>(tile8.thread_rank());
  const int s8 = rank_sum(tile8, work + base8);
  if (t == 0) out[0] = whole;
  if (tile16.thread_rank() == 0) out[1 + t / 16] = s16;
  if (tile8.thread_rank() == 0) out[5 + t / 8] = s8;
}

// A grid-stride loop written with cg::this_grid(): every element doubled once.
__global__ void grid_stride_double(float* data, int n) {
  cg::grid_group grid = cg::this_grid();
  for (unsigned long long i = grid.thread_rank(); i < static_cast<unsigned long long>(n);
       i += grid.size())
    data[i] *= 2.0f;
}

// grid.sync() would need a cooperative launch: stopped with a message, never a deadlock.
__global__ void grid_sync(float* data) {
  cg::this_grid().sync();
  data[threadIdx.x] = 1.0f;
}

// Warp-aggregated append: the lanes whose flag is set take one branch, form a coalesced group
// there, and one of them reserves room for all with a single atomicAdd (the pattern public code
// uses coalesced_threads() for). Per thread: the group's size and this thread's rank, the sum of
// the group's indices (cg::reduce), and the index written to the reserved slot.
__global__ void aggregated_append(int* counter, int* slots, int* info, const int* flags) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (flags[i] != 0) {
    cg::coalesced_group active = cg::coalesced_threads();
    int base = 0;
    if (active.thread_rank() == 0) base = atomicAdd(counter, static_cast<int>(active.size()));
    base = active.shfl(base, 0);
    slots[base + static_cast<int>(active.thread_rank())] = i;
    info[3 * i] = static_cast<int>(active.size());
    info[3 * i + 1] = static_cast<int>(active.thread_rank());
    info[3 * i + 2] = cg::reduce(active, i, cg::plus<int>());
  }
}

// A tile shuffles a 16-byte uint4 (cooperative groups take any trivially copyable type: public
// integral-image code exchanges uint4 rows this way); and a struct of three floats down a tile
// of 8.
struct Triple {
  float a, b, c;
};
__global__ void tile_shuffle_wide(uint4* out, float* out3) {
  auto warp = cg::tiled_partition<32>(cg::this_thread_block());
  auto tile = cg::tiled_partition<8>(cg::this_thread_block());
  const unsigned r = warp.thread_rank();
  const uint4 mine = make_uint4(r, 2 * r, 3 * r, 4 * r);
  out[r] = warp.shfl_xor(mine, 1);
  const Triple t{static_cast<float>(r), 0.5f * static_cast<float>(r), -static_cast<float>(r)};
  const Triple got = tile.shfl_down(t, 2);
  out3[3 * r] = got.a;
  out3[3 * r + 1] = got.b;
  out3[3 * r + 2] = got.c;
}

// Tiles of several warps (cuda-samples' reduction style): block_tile_memory, the 64-thread tiles'
// ranks and sizes, and sync() of a tile that is the whole block.
__global__ void multi_warp_ranks(int* out) {
  __shared__ cg::block_tile_memory<256> scratch;
  cg::thread_block block = cg::this_thread_block(scratch);
  auto tile64 = cg::tiled_partition<64>(block);
  auto whole = cg::tiled_partition<128>(block);
  __shared__ int seen[128];
  seen[block.thread_rank()] = static_cast<int>(tile64.meta_group_rank());
  whole.sync();  // the block is 128 threads: a __syncthreads
  const unsigned mirror = 127 - static_cast<unsigned>(block.thread_rank());
  out[block.thread_rank()] = static_cast<int>(tile64.thread_rank()) * 1000 +
                             static_cast<int>(tile64.meta_group_size()) * 100 + seen[mirror];
}

// A 64-thread tile's sync inside a 128-thread block: a barrier of two of the four warps, which
// banksim does not emulate (stops with a message).
__global__ void multi_warp_partial_sync(int* out) {
  auto tile64 = cg::tiled_partition<64>(cg::this_thread_block());
  out[threadIdx.x] = 1;
  tile64.sync();
}
