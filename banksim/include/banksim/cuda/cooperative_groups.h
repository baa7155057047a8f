// cooperative_groups.h under banksim: the block and warp-tile groups of CUDA's cooperative groups,
// on top of banksim's barriers and warp exchanges (banksim/cuda_host.hpp), so that kernels written
// with them run, and are traced, unchanged. What is here: this_thread_block() (sync, thread_rank,
// size, num_threads, group_index, thread_index, group_dim, dim_threads), tiled_partition<N> of a
// block for N = 1, 2, 4, 8, 16, 32 (sync, thread_rank, size, num_threads, meta_group_rank,
// meta_group_size, shfl, shfl_down, shfl_up, shfl_xor, any, all, ballot), and, from
// <cooperative_groups/reduce.h>, cg::reduce with plus, less, greater, bit_and, bit_or, bit_xor,
// and from <cooperative_groups/memcpy_async.h>, cg::memcpy_async, cg::wait and cg::wait_prior.
// Not here (a compile error names them): grid and multi-grid groups, coalesced_threads(),
// runtime-sized tiled_partition.
#pragma once

namespace cooperative_groups {

/// The thread block: every thread of the launch's block.
class thread_block {
 public:
  void sync() const { __syncthreads(); }
  unsigned long long thread_rank() const {
    return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  }
  unsigned long long size() const { return num_threads(); }
  unsigned long long num_threads() const {
    return static_cast<unsigned long long>(blockDim.x) * blockDim.y * blockDim.z;
  }
  dim3 group_index() const { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
  dim3 thread_index() const { return dim3(threadIdx.x, threadIdx.y, threadIdx.z); }
  dim3 group_dim() const { return dim3(blockDim.x, blockDim.y, blockDim.z); }
  dim3 dim_threads() const { return group_dim(); }
};

inline thread_block this_thread_block() {
  return thread_block{};
}

inline void sync(const thread_block& g) {
  g.sync();
}

/// N consecutive threads of a block (by linear thread id), N a power of two up to 32: they are
/// always in one warp.
template <unsigned N>
class thread_block_tile {
  static_assert(N == 1 || N == 2 || N == 4 || N == 8 || N == 16 || N == 32,
                "banksim: tiled_partition<N> needs N = 1, 2, 4, 8, 16 or 32");

 public:
  void sync() const { __syncwarp(mask()); }
  unsigned long long thread_rank() const { return linear() % N; }
  unsigned long long size() const { return N; }
  unsigned long long num_threads() const { return N; }
  unsigned long long meta_group_rank() const { return linear() / N; }
  unsigned long long meta_group_size() const {
    const unsigned long long threads =
        static_cast<unsigned long long>(blockDim.x) * blockDim.y * blockDim.z;
    return (threads + N - 1) / N;
  }
  template <typename T>
  T shfl(T v, int src) const {
    return __shfl_sync(mask(), v, src, static_cast<int>(N));
  }
  template <typename T>
  T shfl_down(T v, unsigned delta) const {
    return __shfl_down_sync(mask(), v, delta, static_cast<int>(N));
  }
  template <typename T>
  T shfl_up(T v, unsigned delta) const {
    return __shfl_up_sync(mask(), v, delta, static_cast<int>(N));
  }
  template <typename T>
  T shfl_xor(T v, unsigned lane_mask) const {
    return __shfl_xor_sync(mask(), v, static_cast<int>(lane_mask), static_cast<int>(N));
  }
  int any(int predicate) const { return __any_sync(mask(), predicate); }
  int all(int predicate) const { return __all_sync(mask(), predicate); }
  /// The tile's lanes whose predicate holds, as bits 0..N-1 (bit i: the tile's thread i).
  unsigned ballot(int predicate) const {
    return (__ballot_sync(mask(), predicate) >> first_lane()) & (N == 32 ? ~0u : (1u << N) - 1);
  }

 private:
  static unsigned linear() {
    return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  }
  static unsigned first_lane() { return (linear() % 32u) & ~(N - 1); }
  /// The tile's lanes within its warp.
  static unsigned mask() { return N == 32 ? 0xffffffffu : ((1u << N) - 1) << first_lane(); }
};

template <unsigned N, typename Parent>
thread_block_tile<N> tiled_partition(const Parent&) {
  static_assert(sizeof(Parent) > 0 && std::is_same<Parent, thread_block>::value,
                "banksim: tiled_partition<N> of a thread_block only");
  return thread_block_tile<N>{};
}

template <unsigned N>
void sync(const thread_block_tile<N>& g) {
  g.sync();
}

}  // namespace cooperative_groups
