// stacks.hpp - the fibers' stacks: one mapping of fixed-size slots, a guard page below each
// (part of banksim's engine, engine.hpp).
#pragma once

#include <sys/mman.h>

#include <boost/context/fiber.hpp>
#include <cstddef>
#include <stdexcept>
#include <vector>

#include "banksim/runtime.hpp"

namespace banksim::rt::detail {

namespace ctx = boost::context;

/// An address range [lo, hi).
struct Region {
  std::uintptr_t lo;
  std::uintptr_t hi;
};

// ---- Fiber stacks: one mapping, fixed-size slots with a guard page each --------------------
class StackPool {
 public:
  static constexpr std::size_t kStackBytes = 64 * 1024;
  static constexpr std::size_t kSlotBytes = kStackBytes + 4096;

  StackPool() {
    const std::size_t bytes = kSlotBytes * kMaxThreadsPerBlock;
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) throw std::runtime_error("banksim: cannot map fiber stacks");
    base_ = static_cast<char*>(p);
    size_ = bytes;
    for (unsigned i = 0; i < kMaxThreadsPerBlock; ++i) {
      mprotect(base_ + i * kSlotBytes, 4096, PROT_NONE);  // guard page below each stack
      free_.push_back(kMaxThreadsPerBlock - 1 - i);
    }
  }
  ctx::stack_context allocate() {
    if (free_.empty()) throw std::runtime_error("banksim: out of fiber stacks");
    const unsigned slot = free_.back();
    free_.pop_back();
    // Stacks grow down from the slot's end, less a colour: slots are a whole number of pages
    // apart, and without it the tops of all 1024 stacks would share one set of the L1 cache.
    const std::size_t colour = (slot % 64) * 64;
    ctx::stack_context sc;
    sc.size = kStackBytes - colour;
    sc.sp = base_ + slot * kSlotBytes + kSlotBytes - colour;
    return sc;
  }
  void deallocate(ctx::stack_context& sc) noexcept {
    const auto top = static_cast<char*>(sc.sp);
    free_.push_back(static_cast<unsigned>((top - base_ - 1) / kSlotBytes));
  }
  /// The whole mapping (every stack and its guard page).
  Region region() const {
    return Region{reinterpret_cast<std::uintptr_t>(base_),
                  reinterpret_cast<std::uintptr_t>(base_) + size_};
  }

 private:
  char* base_ = nullptr;
  std::size_t size_ = 0;
  std::vector<unsigned> free_;
};

struct PoolAllocator {
  StackPool* pool;
  ctx::stack_context allocate() { return pool->allocate(); }
  void deallocate(ctx::stack_context& sc) noexcept { pool->deallocate(sc); }
};

inline StackPool& stack_pool() {
  static StackPool pool;
  return pool;
}

}  // namespace banksim::rt::detail
