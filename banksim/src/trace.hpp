// trace.hpp - what a warp's lanes record between two stops: each lane's shared accesses (their
// pcs tagged with its loop epoch) and its device-buffer accesses, in growable buffers the hooks
// append to inline; the sectors a warp loaded; a warp request with the accesses behind it
// (part of banksim's engine, engine.hpp).
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "banksim/runtime.hpp"

namespace banksim::rt::detail {

// ---- Trace buffers ----------------------------------------------------------------------------
/// A growable array of a trivially copyable T (the subset of std::vector the traces use) whose
/// append is a compare and a store the hooks inline: std::vector's emplace_back stayed an
/// out-of-line call there, and with it every register the hook uses had to be saved.
template <typename T>
class TraceBuffer {
  static_assert(std::is_trivially_copyable_v<T>, "copied with memcpy");

 public:
  TraceBuffer() = default;
  TraceBuffer(const TraceBuffer&) = delete;
  TraceBuffer& operator=(const TraceBuffer&) = delete;
  ~TraceBuffer() { std::free(begin_); }
  std::size_t size() const { return static_cast<std::size_t>(end_ - begin_); }
  std::size_t capacity() const { return static_cast<std::size_t>(cap_ - begin_); }
  bool empty() const { return end_ == begin_; }
  bool full() const { return end_ == cap_; }
  T* data() { return begin_; }
  const T* data() const { return begin_; }
  T* begin() { return begin_; }
  T* end() { return end_; }
  const T* begin() const { return begin_; }
  const T* end() const { return end_; }
  T& operator[](std::size_t i) { return begin_[i]; }
  const T& operator[](std::size_t i) const { return begin_[i]; }
  void clear() { end_ = begin_; }
  /// Appends, the buffer known not full (full() checked first).
  void push_unchecked(const T& value) { *end_++ = value; }
  void push_back(const T& value) {
    if (full()) grow(size() + 1);
    *end_++ = value;
  }
  T& emplace_back() {
    if (full()) grow(size() + 1);
    return *end_++;
  }
  /// Appends [first, last) at the end (`at` must be end()).
  void insert(T* at, const T* first, const T* last) {
    if (at != end_) throw std::logic_error("TraceBuffer: insert only at the end");
    const std::size_t n = static_cast<std::size_t>(last - first);
    if (size() + n > capacity()) grow(size() + n);
    std::memcpy(static_cast<void*>(end_), first, n * sizeof(T));
    end_ += n;
  }
  void swap(TraceBuffer& other) noexcept {
    std::swap(begin_, other.begin_);
    std::swap(end_, other.end_);
    std::swap(cap_, other.cap_);
  }

 private:
  __attribute__((noinline)) void grow(std::size_t at_least) {
    const std::size_t n = size();
    const std::size_t cap = std::max<std::size_t>({at_least, 2 * capacity(), 64});
    auto* p = static_cast<T*>(std::realloc(static_cast<void*>(begin_), cap * sizeof(T)));
    if (p == nullptr) throw std::bad_alloc();
    begin_ = p;
    end_ = p + n;
    cap_ = p + cap;
  }
  T* begin_ = nullptr;
  T* end_ = nullptr;
  T* cap_ = nullptr;
};

// ---- One access in a thread's trace ---------------------------------------------------------
struct Access {
  std::uint64_t pc;
  std::uint32_t offset;
  std::uint8_t size;
  std::uint8_t op;  // a bankmodel::Op
  std::uint16_t sub;
};

// The pc an Access records carries the lane's loop epoch in its top 16 bits (user-space code
// lies below 2^47): the regions pass hashes each loop header's passage into banksim_loop_epoch
// and puts it back at the loop's exits, so lanes in the same iteration of the same loops record
// the same tagged pc, and lanes in different iterations different ones. Grouping a warp's
// accesses by tagged pc then pairs only what the hardware issues together after lanes diverge,
// at the cost of a shift and an xor on the hot path (a second field would make an Access 24
// bytes). Without the pass the epoch is 0 and the pc is the code address.
constexpr unsigned kEpochShift = 48;
constexpr std::uint64_t kCodePcMask = (std::uint64_t{1} << kEpochShift) - 1;
/// The code address of a traced access's pc (its loop epoch dropped).
inline std::uint64_t code_pc(std::uint64_t tagged) {
  return tagged & kCodePcMask;
}
/// `pc` tagged with loop epoch `epoch`.
inline std::uint64_t tagged_pc(std::uint64_t pc, std::uint32_t epoch) {
  return pc ^ (std::uint64_t{(epoch >> 16) ^ (epoch & 0xffffU)} << kEpochShift);
}

// Trace buffers, one per lane: a warp runs to its barrier and is flushed before the next warp
// runs, so lanes of different warps can share them; kept across launches to avoid page faults.
inline std::array<TraceBuffer<Access>, bankmodel::kWarpSize>& lane_traces() {
  static std::array<TraceBuffer<Access>, bankmodel::kWarpSize> traces;
  return traces;
}

// One access to a device buffer (global memory), traced per lane like shared accesses so that a
// warp's accesses form requests whose 32-byte sectors are counted.
struct GlobalAccess {
  std::uint64_t pc;
  std::uintptr_t address;
  std::uint8_t size;
  std::uint8_t op;  // kLoad or kStore
};
inline std::array<TraceBuffer<GlobalAccess>, bankmodel::kWarpSize>& lane_global_traces() {
  static std::array<TraceBuffer<GlobalAccess>, bankmodel::kWarpSize> traces;
  return traces;
}

/// A set of 32-byte sector numbers (open addressing, reused: clear() forgets only what was put
/// in): the sectors a warp loaded since its last barrier.
class SectorSet {
 public:
  /// Adds `sector`; true when it was not in the set.
  bool insert(std::uintptr_t sector) {
    if ((used_.size() + 1) * 2 > table_.size()) grow();
    const std::uintptr_t key = sector + 1;  // 0 marks an empty slot
    std::size_t i = hash(key) & (table_.size() - 1);
    while (table_[i] != 0) {
      if (table_[i] == key) return false;
      i = (i + 1) & (table_.size() - 1);
    }
    table_[i] = key;
    used_.push_back(i);
    return true;
  }
  void clear() {
    for (std::size_t i : used_) table_[i] = 0;
    used_.clear();
  }

 private:
  static std::size_t hash(std::uintptr_t k) { return (k * 0x9E3779B97F4A7C15ULL) >> 20; }
  void grow() {
    std::vector<std::uintptr_t> old;
    for (std::size_t i : used_) old.push_back(table_[i] - 1);
    table_.assign(std::max<std::size_t>(1024, table_.size() * 2), 0);
    used_.clear();
    for (std::uintptr_t sector : old) insert(sector);
  }
  std::vector<std::uintptr_t> table_;
  std::vector<std::size_t> used_;
};

/// One warp-level shared request with the lanes' accesses behind it (flush_warp, regroup).
struct WarpRequest {
  std::uint64_t pc = 0;
  std::uint16_t sub = 0;
  bankmodel::Request request{bankmodel::Op::kLoad, 4};
  const Access* lanes[bankmodel::kWarpSize] = {};
};

}  // namespace banksim::rt::detail
