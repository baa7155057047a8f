// cooperative_groups/reduce.h under banksim: cg::reduce over a warp tile (a butterfly of
// shfl_xor, every thread of the tile gets the result, as CUDA's does) and its operators.
#pragma once

#include "../cooperative_groups.h"

namespace cooperative_groups {

template <typename T>
struct plus {
  T operator()(T a, T b) const { return a + b; }
};
template <typename T>
struct less {  // the smaller: cg::reduce(tile, v, cg::less<T>()) is a minimum
  T operator()(T a, T b) const { return b < a ? b : a; }
};
template <typename T>
struct greater {  // the larger: a maximum
  T operator()(T a, T b) const { return a < b ? b : a; }
};
template <typename T>
struct bit_and {
  T operator()(T a, T b) const { return a & b; }
};
template <typename T>
struct bit_or {
  T operator()(T a, T b) const { return a | b; }
};
template <typename T>
struct bit_xor {
  T operator()(T a, T b) const { return a ^ b; }
};

/// A coalesced group: a tree over ranks (its size need not be a power of two); every thread gets
/// the result.
template <typename T, typename Op>
T reduce(const coalesced_group& group, T value, Op op) {
  const unsigned long long size = group.size();
  const unsigned long long rank = group.thread_rank();
  for (unsigned offset = 1; offset < size; offset *= 2) {
    const T other = group.shfl_down(value, offset);
    if (rank + offset < size) value = op(value, other);
  }
  return group.shfl(value, 0);
}

template <unsigned N, typename T, typename Op>
T reduce(const thread_block_tile<N>& tile, T value, Op op) {
  if constexpr (N > 32) {
    // CUDA combines the warps' results through the block's reserved shared memory (accesses
    // banksim cannot reproduce): stopped with a message rather than counted wrong.
    banksim_detail::unsupported(
        "cg::reduce over a tile of more than 32 threads: banksim does not emulate it (reduce "
        "each warp's tile of 32, then combine the warps through shared memory yourself)");
  } else {
    for (unsigned offset = N / 2; offset > 0; offset /= 2) {
      value = op(value, tile.shfl_xor(value, offset));
    }
    return value;
  }
}

}  // namespace cooperative_groups
