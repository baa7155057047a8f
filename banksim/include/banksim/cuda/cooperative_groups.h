// cooperative_groups.h under banksim: the block and warp-tile groups of CUDA's cooperative groups,
// on top of banksim's barriers and warp exchanges (banksim/cuda_host.hpp), so that kernels written
// with them run, and are traced, unchanged. What is here: this_thread_block() (sync, thread_rank,
// size, num_threads, group_index, thread_index, group_dim, dim_threads), tiled_partition<N> of a
// block for N = 1, 2, 4, 8, 16, 32 (sync, thread_rank, size, num_threads, meta_group_rank,
// meta_group_size, shfl, shfl_down, shfl_up, shfl_xor, any, all, ballot), and, from
// <cooperative_groups/reduce.h>, cg::reduce with plus, less, greater, bit_and, bit_or, bit_xor,
// and from <cooperative_groups/memcpy_async.h>, cg::memcpy_async, cg::wait and cg::wait_prior.
// thread_group (what a block or tile converts to) and the run-time tiled_partition(group, n) for
// n up to 32; this_grid() for ranks and sizes (grid.sync() stops with a message: blocks run one
// after another here); coalesced_threads() and its coalesced_group (rank, size, shfl,
// shfl_up/down, any, all, ballot, sync, cg::reduce); tiles of 64 to 1024 threads with
// block_tile_memory: ranks and sizes, and sync() where the tile is the whole block (their sync
// over part of a block and cg::reduce stop with a message). Not here (a compile error names
// them): multi-grid groups.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <type_traits>

namespace cooperative_groups {
namespace banksim_detail {
/// Stops the launch with a message in the report (as course_todo does under banksim).
[[noreturn]] inline void unsupported(const char* what) {
  banksim_stop(what);
}
/// A group's shuffle of any trivially copyable type, as CUDA's cooperative groups allow (a
/// uint4, a struct): one warp shuffle of up to 8 bytes, or one per 4-byte word of a larger type.
/// (The bare __shfl_*_sync take only CUDA's 4- and 8-byte types, as under nvcc.)
template <typename T, typename Shuffle>
T shuffle_words(const T& v, Shuffle shuffle) {
  static_assert(std::is_trivially_copyable<T>::value,
                "cooperative groups shuffle trivially copyable types only");
  if constexpr (sizeof(T) <= 8) {
    return shuffle(v);
  } else {
    unsigned words[(sizeof(T) + 3) / 4] = {};
    std::memcpy(words, &v, sizeof(T));
    for (unsigned& w : words) w = shuffle(w);
    T out;
    std::memcpy(&out, words, sizeof(T));
    return out;
  }
}
}  // namespace banksim_detail

/// Any group, its kind known at run time (CUDA's type-erased base class): what a thread_block or
/// a thread_block_tile<N> converts to, and what the run-time tiled_partition(g, n) returns. Here a
/// group is the block (tile 0) or a tile of 1 to 32 consecutive threads of one warp.
class thread_group {
 public:
  void sync() const {
    if (tile_ == 0) {
      __syncthreads();
    } else {
      __syncwarp(mask());
    }
  }
  unsigned long long thread_rank() const { return tile_ == 0 ? linear() : linear() % tile_; }
  unsigned long long size() const { return tile_ == 0 ? block_threads() : tile_; }
  unsigned long long num_threads() const { return size(); }
  /// 0 for the block, else the tile's size (banksim's own: CUDA has no such member).
  unsigned banksim_tile_size() const { return tile_; }

 protected:
  explicit thread_group(unsigned tile) : tile_(tile) {}
  static unsigned linear() {
    return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  }
  static unsigned long long block_threads() {
    return static_cast<unsigned long long>(blockDim.x) * blockDim.y * blockDim.z;
  }
  unsigned mask() const {
    const unsigned first = (linear() % 32u) & ~(tile_ - 1);
    return tile_ == 32 ? 0xffffffffu : ((1u << tile_) - 1) << first;
  }

 private:
  unsigned tile_;
  friend thread_group tiled_partition(const thread_group& parent, unsigned tilesz);
};

/// The thread block: every thread of the launch's block.
class thread_block : public thread_group {
 public:
  thread_block() : thread_group(0) {}
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

/// The whole grid: ranks and sizes for grid-stride loops. grid.sync() needs every block resident
/// at once (a cooperative launch); banksim runs blocks one after another, so it stops with a
/// message instead of deadlocking.
class grid_group {
 public:
  unsigned long long thread_rank() const {
    return block_rank() * block_threads() +
           (threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z));
  }
  unsigned long long size() const { return num_threads(); }
  unsigned long long num_threads() const { return num_blocks() * block_threads(); }
  unsigned long long block_rank() const {
    return blockIdx.x + static_cast<unsigned long long>(gridDim.x) *
                            (blockIdx.y + static_cast<unsigned long long>(gridDim.y) * blockIdx.z);
  }
  unsigned long long num_blocks() const {
    return static_cast<unsigned long long>(gridDim.x) * gridDim.y * gridDim.z;
  }
  dim3 group_dim() const { return dim3(gridDim.x, gridDim.y, gridDim.z); }
  dim3 dim_blocks() const { return group_dim(); }
  dim3 block_index() const { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
  bool is_valid() const { return true; }
  void sync() const {
    banksim_detail::unsupported(
        "grid_group::sync() needs a cooperative launch with every block resident; banksim runs "
        "blocks one after another and cannot emulate it");
  }

 private:
  static unsigned long long block_threads() {
    return static_cast<unsigned long long>(blockDim.x) * blockDim.y * blockDim.z;
  }
};

inline grid_group this_grid() {
  return grid_group{};
}

inline thread_block this_thread_block() {
  return thread_block{};
}

inline void sync(const thread_block& g) {
  g.sync();
}

/// CUDA's scratch for tiles of more than 32 threads (`__shared__ cg::block_tile_memory<1024> s;
/// cg::this_thread_block(s)`): empty on sm_80 and later, as here (the GPU keeps that scratch in
/// the block's reserved shared memory).
template <unsigned int MaxBlockSize = 1024>
struct alignas(8) block_tile_memory {};

template <unsigned int MaxBlockSize>
inline thread_block this_thread_block(block_tile_memory<MaxBlockSize>&) {
  return thread_block{};
}

/// N consecutive threads of a block (by linear thread id), N a power of two. Up to 32 they are
/// always in one warp, and everything works. Tiles of 64 to 1024 threads (several warps) have
/// their ranks and sizes, and sync() where the tile is the whole block; a tile's sync() over part
/// of a block (a barrier of some warps: bar.sync with a thread count) and cg::reduce over several
/// warps (done in the block's reserved shared memory on the GPU) stop with a message: banksim
/// emulates neither.
template <unsigned N>
class thread_block_tile : public thread_group {
  static_assert(N == 1 || N == 2 || N == 4 || N == 8 || N == 16 || N == 32 || N == 64 || N == 128 ||
                    N == 256 || N == 512 || N == 1024,
                "banksim: tiled_partition<N> needs N = 1, 2, 4, ... 1024 (a power of two)");

 public:
  thread_block_tile() : thread_group(N) {}
  void sync() const {
    if constexpr (N <= 32) {
      __syncwarp(mask());
    } else {
      if (static_cast<unsigned long long>(blockDim.x) * blockDim.y * blockDim.z <= N) {
        __syncthreads();  // the tile is the whole block
      } else {
        banksim_detail::unsupported(
            "sync() of a tile of more than 32 threads that is part of its block (a barrier of "
            "some of the block's warps): banksim does not emulate it; use a block of the tile's "
            "size, or __syncthreads()");
      }
    }
  }
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
    static_assert(N <= 32, "banksim: shuffles are for tiles of up to 32 threads (as in CUDA)");
    return banksim_detail::shuffle_words(
        v, [src](auto w) { return __shfl_sync(mask(), w, src, static_cast<int>(N)); });
  }
  template <typename T>
  T shfl_down(T v, unsigned delta) const {
    static_assert(N <= 32, "banksim: shuffles are for tiles of up to 32 threads (as in CUDA)");
    return banksim_detail::shuffle_words(
        v, [delta](auto w) { return __shfl_down_sync(mask(), w, delta, static_cast<int>(N)); });
  }
  template <typename T>
  T shfl_up(T v, unsigned delta) const {
    static_assert(N <= 32, "banksim: shuffles are for tiles of up to 32 threads (as in CUDA)");
    return banksim_detail::shuffle_words(
        v, [delta](auto w) { return __shfl_up_sync(mask(), w, delta, static_cast<int>(N)); });
  }
  template <typename T>
  T shfl_xor(T v, unsigned lane_mask) const {
    static_assert(N <= 32, "banksim: shuffles are for tiles of up to 32 threads (as in CUDA)");
    return banksim_detail::shuffle_words(v, [lane_mask](auto w) {
      return __shfl_xor_sync(mask(), w, static_cast<int>(lane_mask), static_cast<int>(N));
    });
  }
  int any(int predicate) const {
    static_assert(N <= 32, "banksim: votes are for tiles of up to 32 threads (as in CUDA)");
    return __any_sync(mask(), predicate);
  }
  int all(int predicate) const {
    static_assert(N <= 32, "banksim: votes are for tiles of up to 32 threads (as in CUDA)");
    return __all_sync(mask(), predicate);
  }
  /// The tile's lanes whose predicate holds, as bits 0..N-1 (bit i: the tile's thread i).
  unsigned ballot(int predicate) const {
    static_assert(N <= 32, "banksim: votes are for tiles of up to 32 threads (as in CUDA)");
    return (__ballot_sync(mask(), predicate) >> first_lane()) & (N == 32 ? ~0u : (1u << N) - 1);
  }

 private:
  static unsigned linear() {
    return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  }
  static unsigned first_lane() { return (linear() % 32u) & ~(N - 1); }
  /// The tile's lanes within its warp.
  static unsigned mask() {
    if constexpr (N >= 32) {
      return 0xffffffffu;
    } else {
      return ((1u << N) - 1) << first_lane();
    }
  }
};

/// The lanes of a warp that called coalesced_threads() together (__activemask()): ranked in lane
/// order, so rank 0 is the lowest active lane. Under banksim the lanes together are those waiting
/// at the call when the warp has run as far as it can: the lanes of one branch.
class coalesced_group {
 public:
  explicit coalesced_group(unsigned mask) : mask_(mask) {}
  void sync() const { __syncwarp(mask_); }
  unsigned long long thread_rank() const { return __builtin_popcount(mask_ & below()); }
  unsigned long long size() const { return __builtin_popcount(mask_); }
  unsigned long long num_threads() const { return size(); }
  unsigned long long meta_group_rank() const { return 0; }
  unsigned long long meta_group_size() const { return 1; }
  /// The value of the group's thread `rank` (this thread's own when rank is not in the group).
  template <typename T>
  T shfl(T v, unsigned rank) const {
    const int src = static_cast<int>(lane_of(rank));
    return banksim_detail::shuffle_words(
        v, [this, src](auto w) { return __shfl_sync(mask_, w, src); });
  }
  template <typename T>
  T shfl_down(T v, unsigned delta) const {
    const int src = static_cast<int>(lane_of(thread_rank() + delta));
    return banksim_detail::shuffle_words(
        v, [this, src](auto w) { return __shfl_sync(mask_, w, src); });
  }
  template <typename T>
  T shfl_up(T v, unsigned delta) const {
    const unsigned long long r = thread_rank();
    const int src = static_cast<int>(lane_of(r >= delta ? r - delta : r));
    return banksim_detail::shuffle_words(
        v, [this, src](auto w) { return __shfl_sync(mask_, w, src); });
  }
  int any(int predicate) const { return __any_sync(mask_, predicate); }
  int all(int predicate) const { return __all_sync(mask_, predicate); }
  /// Bit i set when the group's thread of rank i has a non-zero predicate (CUDA: ranks, not lanes).
  unsigned ballot(int predicate) const {
    const unsigned lanes = __ballot_sync(mask_, predicate);
    unsigned out = 0;
    unsigned rank = 0;
    for (unsigned lane = 0; lane < 32; ++lane) {
      if (((mask_ >> lane) & 1u) == 0) continue;
      if (((lanes >> lane) & 1u) != 0) out |= 1u << rank;
      ++rank;
    }
    return out;
  }
  /// The group's lanes within the warp (not in CUDA's API; banksim's reduce uses it).
  unsigned banksim_mask() const { return mask_; }

 private:
  static unsigned lane() {
    return (threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)) % 32u;
  }
  static unsigned below() { return (1u << lane()) - 1u; }
  /// The lane of rank `rank`; this thread's own lane when the group has no such rank.
  unsigned lane_of(unsigned long long rank) const {
    unsigned long long seen = 0;
    for (unsigned l = 0; l < 32; ++l) {
      if (((mask_ >> l) & 1u) == 0) continue;
      if (seen++ == rank) return l;
    }
    return lane();
  }
  unsigned mask_;
};

/// The calling thread's coalesced group (see coalesced_group).
__attribute__((always_inline)) inline coalesced_group coalesced_threads() {
  return coalesced_group(__activemask());
}

inline void sync(const coalesced_group& g) {
  g.sync();
}

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

inline void sync(const thread_group& g) {
  g.sync();
}

/// The run-time form: tiles of `tilesz` threads of a block, tilesz = 1, 2, 4, 8, 16 or 32 (CUDA
/// also allows larger tiles; banksim stops with a message naming them).
inline thread_group tiled_partition(const thread_group& parent, unsigned tilesz) {
  const bool ok = parent.banksim_tile_size() == 0 && tilesz >= 1 && tilesz <= 32 &&
                  (tilesz & (tilesz - 1)) == 0;
  if (!ok) {
    banksim_detail::unsupported(
        "tiled_partition(group, n): only tiles of 1, 2, 4, 8, 16 or 32 threads of a thread "
        "block are supported");
  }
  return thread_group(tilesz);
}

}  // namespace cooperative_groups
