// cooperative_groups/memcpy_async.h under banksim: cg::memcpy_async and cg::wait / wait_prior,
// so that kernels staging tiles with them run, and are traced, unchanged.
//
// On sm_80+ the copy is asynchronous (LDGSTS: global to shared without registers) and only
// cg::wait(group) makes it visible; which thread moves which bytes is unspecified. Here the
// group's threads copy at once, in rounds of chunks of the widest size that the two addresses and
// the length allow (16, 8, 4 or 1 bytes): thread r of the group moves chunks r, r + size, ... —
// consecutive threads consecutive chunks, as the hardware's coalesced copy does, so the shared
// stores are traced as the group's c-byte requests. cg::wait is the group's barrier. A read of
// the destination before cg::wait by another thread is a race here as it is on the GPU.
#pragma once

#include <cstddef>
#include <cstdint>

#include "../cooperative_groups.h"

namespace cooperative_groups {
namespace banksim_detail {

// Inlined, so that the copy's accesses are reported at the student's memcpy_async line.
template <typename C, typename Group>
__forceinline__ void copy_chunks(const Group& g, void* dst, const void* src, std::size_t bytes) {
  C* d = static_cast<C*>(dst);
  const C* s = static_cast<const C*>(src);
  const std::size_t n = bytes / sizeof(C);
  for (std::size_t i = g.thread_rank(); i < n; i += g.size()) d[i] = s[i];
}

}  // namespace banksim_detail

/// Copies `bytes` bytes from `src` to `dst` with every thread of `g` (see the file comment).
template <typename Group>
__forceinline__ void memcpy_async(const Group& g, void* dst, const void* src, std::size_t bytes) {
  const auto a = reinterpret_cast<std::uintptr_t>(dst) | reinterpret_cast<std::uintptr_t>(src) |
                 static_cast<std::uintptr_t>(bytes);
  if (a % 16 == 0) {
    banksim_detail::copy_chunks<uint4>(g, dst, src, bytes);
  } else if (a % 8 == 0) {
    banksim_detail::copy_chunks<uint2>(g, dst, src, bytes);
  } else if (a % 4 == 0) {
    banksim_detail::copy_chunks<unsigned int>(g, dst, src, bytes);
  } else {
    banksim_detail::copy_chunks<unsigned char>(g, dst, src, bytes);
  }
}

/// The element-count form: copies min(dst_count, src_count) elements of T.
template <typename Group, typename T>
__forceinline__ void memcpy_async(const Group& g, T* dst, std::size_t dst_count, const T* src,
                                  std::size_t src_count) {
  memcpy_async(g, static_cast<void*>(dst), static_cast<const void*>(src),
               (dst_count < src_count ? dst_count : src_count) * sizeof(T));
}

/// Waits for the group's copies: every thread of the group, then the data is visible.
template <typename Group>
void wait(const Group& g) {
  g.sync();
}

/// Waits until at most N of the group's copy batches are pending: here every copy is complete
/// at once, so this is the group's barrier as wait() is.
template <unsigned N, typename Group>
void wait_prior(const Group& g) {
  g.sync();
}

}  // namespace cooperative_groups
