// engine_inline.hpp - the hot path's inline definitions of class Launch (every traced load and
// store of a kernel goes through them); included at the end of engine.hpp, not on its own.
#pragma once

namespace banksim::rt::detail {

// ---- The hot path: every load and store of the kernel ---------------------------------------

template <typename F>
inline void Launch::for_each_cell(std::uint32_t offset, std::uint32_t size, F f) {
  if (size >= 4 && (offset & 3U) == 0) {
    for (std::uint32_t w = offset >> 2, end = (offset + size) >> 2; w < end; ++w) {
      if (split_[w] == 0) {
        f(shadow_[w], w << 2);
      } else {
        for (std::uint32_t b = w << 2; b < (w << 2) + 4; ++b) f(byte_shadow_[b], b);
      }
    }
    return;
  }
  for (std::uint32_t b = offset; b < offset + size; ++b) {
    if (split_[b >> 2] == 0) split_word(b >> 2);
    f(byte_shadow_[b], b);
  }
}

__attribute__((always_inline)) inline void Launch::shared_access(std::uint32_t offset,
                                                                 std::uint32_t size, Op op,
                                                                 std::uint64_t pc,
                                                                 std::uint16_t sub) {
  Thread* t = current_;
  if (t == nullptr) return;  // host code touching shared variables: not a kernel access
  g_last_pc = pc;
  if (__builtin_expect(pending_.active || g_abort_requested.load(std::memory_order_relaxed), 0)) {
    resolve_pending();
    check_abort();
  }
  const int var = var_at(offset);
  if (__builtin_expect(var < 0 || var_at(offset + size - 1) != var, 0)) {
    shared_out_of_bounds(offset, size, pc, var);
    return;  // not traced as a bank access: the hardware would fault
  }
  // The common case inline: whole words none of which a sub-word access has split.
  const std::uint32_t first = offset >> 2;
  const std::uint32_t words = size >> 2;
  bool whole = words != 0 && (offset & 3U) == 0;
  if (whole) {
    // The words' split flags at once (an aligned access of 4, 8 or 16 bytes: 1, 2 or 4 flags).
    // One load of constant width each: a memcpy of `words` bytes into a local is a library
    // call whose byte stores the 4-byte read of the local then waits for (a store-forwarding
    // stall, once the hot path's largest cost).
    const std::uint8_t* f = &split_[first];
    if (words == 1) {
      whole = f[0] == 0;
    } else if (words == 2) {
      std::uint16_t flags;
      std::memcpy(&flags, f, 2);
      whole = flags == 0;
    } else if (words == 4) {
      std::uint32_t flags;
      std::memcpy(&flags, f, 4);
      whole = flags == 0;
    } else {
      for (std::uint32_t i = 0; i < words; ++i) whole = whole && f[i] == 0;
    }
  }
  if (__builtin_expect(!whole, 0)) {
    shared_cells(offset, size, op, pc, var);
  } else {
    const Accessor who = accessor(t, pc, var);
    Shadow* cells = &shadow_[first];
    bool reported = false;  // each problem once per access: its count is of accesses
    if (op == Op::kLoad) {
#pragma GCC unroll 4
      for (std::uint32_t i = 0; i < words; ++i) load_cell(cells[i], offset + 4 * i, who, &reported);
    } else {
#pragma GCC unroll 4
      for (std::uint32_t i = 0; i < words; ++i) store_cell(cells[i], offset, size, who, &reported);
    }
  }
  trace(t, pc, offset, size, op, sub);
}

__attribute__((always_inline)) inline void Launch::global_access(std::uintptr_t address,
                                                                 std::uint32_t size, Op op,
                                                                 std::uint64_t pc) {
  if (current_ == nullptr) return;
  // Device buffers are global memory: traced for the sector count. Images and stacks (globals of
  // the module, threadIdx, the thread's locals) are checked but not counted.
  for (const Region& r : buf_regions_) {
    if (address >= r.lo && address + size <= r.hi) return trace_global(address, size, op, pc);
  }
  if (address >= stacks_.lo && address + size <= stacks_.hi) return;
  for (const Region& r : ok_regions_) {
    if (address >= r.lo && address + size <= r.hi) return;
  }
  global_access_slow(address, size, op, pc);
}

template <std::uint32_t N, Op kOp>
__attribute__((always_inline)) inline bool Launch::try_shared_access(std::uint32_t offset,
                                                                     std::uint64_t pc) {
  static_assert(N == 4 || N == 8 || N == 16, "whole words only");
  constexpr std::uint32_t kWords = N / 4;
  Thread* t = current_;
  if (t == nullptr || pending_.active || g_abort_requested.load(std::memory_order_relaxed) ||
      (offset & 3U) != 0) {
    return false;
  }
  if (offset + N > owner_.size()) return false;
  const std::int16_t* owner = owner_.data();
  const int var = owner[offset];
  if (var < 0 || owner[offset + N - 1] != var) return false;
  const std::uint32_t first = offset >> 2;
  const std::uint8_t* f = &split_[first];
  if constexpr (kWords == 1) {
    if (f[0] != 0) return false;
  } else if constexpr (kWords == 2) {
    std::uint16_t flags;
    std::memcpy(&flags, f, 2);
    if (flags != 0) return false;
  } else {
    std::uint32_t flags;
    std::memcpy(&flags, f, 4);
    if (flags != 0) return false;
  }
  TraceBuffer<Access>& trace = *t->trace;
  if (trace.full() || trace.size() >= kMaxTracePerThread) return false;
  Shadow* cells = &shadow_[first];
  const std::uint16_t me = t->linear;
  const std::uint32_t interval = interval_;
  // The problems load_cell and store_cell report: none, or the whole path reports them.
  for (std::uint32_t i = 0; i < kWords; ++i) {
    const Shadow& c = cells[i];
    if constexpr (kOp == Op::kLoad) {
      if (c.w_interval < block_first_interval_ || (c.w_interval == interval && c.w_thread != me)) {
        return false;
      }
    } else {
      if ((c.r_interval == interval && c.r_thread != me) ||
          (c.w_interval == interval && c.w_thread != me)) {
        return false;
      }
    }
  }
  g_last_pc = pc;
  const Accessor who = accessor(t, pc, var);
  bool reported = true;  // known: nothing to report
  for (std::uint32_t i = 0; i < kWords; ++i) {
    if constexpr (kOp == Op::kLoad) {
      load_cell(cells[i], offset + 4 * i, who, &reported);
    } else {
      store_cell(cells[i], offset, N, who, &reported);
    }
  }
  trace.push_unchecked(Access{tagged_pc(pc, g_loop_epoch), offset, static_cast<std::uint8_t>(N),
                              static_cast<std::uint8_t>(kOp), 0});
  ++result_.traced_shared;
  return true;
}

template <std::uint32_t N, Op kOp>
__attribute__((always_inline)) inline bool Launch::try_global_access(std::uintptr_t address,
                                                                     std::uint64_t pc) {
  Thread* t = current_;
  if (t == nullptr) return false;
  for (const Region& r : buf_regions_) {
    if (address >= r.lo && address + N <= r.hi) {
      TraceBuffer<GlobalAccess>& trace = *t->global_trace;
      if (trace.full() || trace.size() >= kMaxGlobalTracePerThread) return false;
      trace.push_unchecked(
          GlobalAccess{pc, address, static_cast<std::uint8_t>(N), static_cast<std::uint8_t>(kOp)});
      return true;
    }
  }
  if (address >= stacks_.lo && address + N <= stacks_.hi) return true;
  for (const Region& r : ok_regions_) {
    if (address >= r.lo && address + N <= r.hi) return true;
  }
  return false;
}

}  // namespace banksim::rt::detail
