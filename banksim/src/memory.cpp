// memory.cpp - every traced access checked: shared memory (bounds against the variables' red
// zones, races, uninitialised reads, the shadow of every byte), atomics, and global memory
// (device buffers with guard zones, loaded images and fiber stacks); device buffers themselves.

#include "engine.hpp"

namespace banksim::rt::detail {

namespace ctx = boost::context;
using bankmodel::Op;

// ---- Shared memory: bounds, races, uninitialised reads --------------------------------------

std::string Launch::describe_oob(std::uint32_t offset, std::uint32_t size) const {
  // The nearest variable that ends at or before the offset, and the one after it.
  const SharedVar* before = nullptr;
  const SharedVar* after = nullptr;
  for (const SharedVar& v : layout_.vars) {
    const std::uint32_t vsize =
        v.dynamic ? static_cast<std::uint32_t>(options_.dynamic_smem) : v.size;
    if (v.offset + vsize <= offset && (before == nullptr || v.offset > before->offset)) {
      before = &v;
    }
    if (v.offset > offset && (after == nullptr || v.offset < after->offset)) after = &v;
  }
  std::string msg = std::to_string(size) + "-byte access outside every shared variable";
  if (before != nullptr) {
    const std::uint32_t vsize =
        before->dynamic ? static_cast<std::uint32_t>(options_.dynamic_smem) : before->size;
    msg = std::to_string(size) + "-byte access " +
          std::to_string(offset - (before->offset + vsize)) + " bytes past the end of `" +
          before->name + "` (" + std::to_string(vsize) + " bytes)";
    if (before->dynamic) {
      msg += ": the launch gave " + std::to_string(options_.dynamic_smem) +
             " bytes of dynamic shared memory (the third <<<>>> argument, --smem)";
    }
  } else if (after != nullptr) {
    msg = std::to_string(size) + "-byte access " + std::to_string(after->offset - offset) +
          " bytes before the start of `" + after->name + "`";
  }
  return msg + "; check the index arithmetic and the array's dimensions";
}

void Launch::shared_out_of_bounds(std::uint32_t offset, std::uint32_t size, std::uint64_t pc,
                                  int var) {
  const std::uint32_t end = offset + size - 1;
  report("out_of_bounds", false, pc, 0, current_, kNoThread, var < 0 ? var_at(end) : var,
         describe_oob(var < 0 ? offset : end, size));
}

bool Launch::load_problem(const Shadow& s, std::uint32_t at, std::uint64_t pc, int var) {
  if (s.w_interval < block_first_interval_) {
    uninitialized(at, pc, var);
  } else {
    read_after_write(s, pc, var);
  }
  return true;
}

bool Launch::store_problem(const Shadow& s, std::uint32_t offset, std::uint32_t size,
                           std::uint64_t pc, int var) {
  const std::uint16_t me = current_->linear;
  if (s.r_interval == interval_ && s.r_thread != me) write_after_read(s, pc, var);
  if (s.w_interval == interval_ && s.w_thread != me) write_after_write(s, offset, size, pc);
  return true;
}

void Launch::shared_cells(std::uint32_t offset, std::uint32_t size, Op op, std::uint64_t pc,
                          int var) {
  const Accessor who = accessor(current_, pc, var);
  bool reported = false;  // each problem once per access
  if (op == Op::kLoad) {
    for_each_cell(offset, size,
                  [&](Shadow& c, std::uint32_t at) { load_cell(c, at, who, &reported); });
  } else {
    for_each_cell(offset, size,
                  [&](Shadow& c, std::uint32_t) { store_cell(c, offset, size, who, &reported); });
  }
}

void Launch::runaway_trace() {
  // A runaway loop, stopped before its trace exhausts memory; reported like a timeout.
  request_abort("timeout: a thread made more than " + std::to_string(kMaxTracePerThread) +
                " shared-memory accesses between two barriers (an infinite loop?)");
}

void Launch::split_word(std::uint32_t word) {
  if (byte_shadow_.empty()) byte_shadow_.assign(shadow_.size() * 4, Shadow{});
  for (std::uint32_t b = word << 2; b < (word << 2) + 4; ++b) byte_shadow_[b] = shadow_[word];
  split_[word] = 1;
}

bool Launch::separated_by_syncwarp(std::uint16_t other, std::uint16_t other_epoch) const {
  const Thread* t = current_;
  if (other >= num_threads_ || threads_[other].warp != t->warp) return false;
  // The warp rendezvous since the other lane's access (epochs other_epoch .. now): one that
  // released both lanes orders them. One that released only some lanes of the warp (a half
  // warp's __syncwarp inside a divergent branch) orders nothing across the halves.
  const std::vector<std::uint32_t>& syncs = warp_syncs_[t->warp];
  const auto since = static_cast<std::uint16_t>(warp_epoch_[t->warp] - other_epoch);
  if (since == 0) return false;
  if (syncs.size() >= kMaxWarpSyncs || since > syncs.size()) return true;  // not all kept
  const std::uint32_t both = (1u << t->lane) | (1u << threads_[other].lane);
  for (std::size_t i = syncs.size() - since; i < syncs.size(); ++i) {
    if ((syncs[i] & both) == both) return true;
  }
  return false;
}

void Launch::uninitialized(std::uint32_t offset, std::uint64_t pc, int var) {
  if (pending_uninit_.size() < kMaxPendingUninit) {
    pending_uninit_.push_back(PendingUninit{offset, pc, current_->linear, var});
  }
}

void Launch::resolve_uninitialized() {
  for (const PendingUninit& u : pending_uninit_) {
    const SharedVar& v = layout_.vars[static_cast<std::size_t>(u.var)];
    const Shadow& s = cell(u.offset);
    const std::string where = "`" + v.name + "`, byte " + std::to_string(u.offset - v.offset);
    if (s.w_interval == interval_ && s.w_thread != u.thread) {
      // The read came first, the other thread's write after it (Module words it with lines).
      RawProblem* p = report(
          "uninitialized_read", false, u.pc, pc64(s.w_pc), &threads_[u.thread], s.w_thread, u.var,
          "read of shared memory (" + where +
              ") before another thread wrote it, with no barrier in between: the read "
              "came first here, on the GPU it may come after the write; separate the "
              "two accesses with a __syncthreads()");
      if (p != nullptr)
        sequence(*p, rt::Access::kRead, rt::Access::kWrite, false,
                 "`" + v.name + "` (byte " + std::to_string(u.offset - v.offset) + ")");
    } else {
      report("uninitialized_read", false, u.pc, 0, &threads_[u.thread], kNoThread, u.var,
             "read of shared memory (" + where +
                 ") that no thread of this block wrote before the read: a guard or an index "
                 "skips the write that should fill it (an edge tile? a loop bound?), so the "
                 "value is garbage on the GPU");
    }
  }
  pending_uninit_.clear();
}

void Launch::misaligned(std::uint32_t offset, std::uint32_t size, std::uint64_t pc, int var) {
  std::string where = "shared offset " + std::to_string(offset);
  if (var >= 0) {
    const SharedVar& v = layout_.vars[static_cast<std::size_t>(var)];
    where = "`" + v.name + "`, byte " + std::to_string(offset - v.offset);
  }
  report("misaligned", false, pc, 0, current_, kNoThread, var,
         std::to_string(size) + "-byte access at " + where + ": the address mod " +
             std::to_string(size) + " is " + std::to_string(offset % size) +
             " (the GPU stops with \"misaligned address\"); an access of N bytes needs an "
             "address that is a multiple of N: check the row pitch and the cast");
}

const WidthRule& Launch::rule_for(std::uint64_t pc) {
  static const WidthRule kNone{};
  const auto it = rules_.find(pc);
  return it != rules_.end() ? it->second : kNone;
}

void Launch::misaligned_access(std::uintptr_t where, std::uint32_t size, Op op, std::uint64_t pc,
                               bool shared, bool unsure) {
  if (current_ == nullptr) return;
  g_last_pc = pc;
  if (options_.widths != nullptr) {
    // nvcc's widths for this line: if it makes no access of this size and kind there, it split
    // what clang moved whole (a float3 returned in registers: x and y as one 8-byte store), and
    // the GPU has nothing to fault on. A line nvcc emitted nothing for is taken as it is.
    const WidthRule& rule = rule_for(pc);
    const std::uint8_t mask = shared ? (op == Op::kLoad ? rule.load : rule.store)
                                     : (op == Op::kLoad ? rule.global_load : rule.global_store);
    if (rule.group != 0 && op != Op::kAtomic && (mask & size) == 0) return;  // bit k: 2^k bytes
  } else if (unsure) {
    result_.mergeable = true;
  }
  if (shared) {
    const auto offset = static_cast<std::uint32_t>(where);
    misaligned(offset, size, pc, var_at(offset));
    return;
  }
  report("misaligned", false, pc, 0, current_, kNoThread, -1,
         std::to_string(size) + "-byte global access at an address whose value mod " +
             std::to_string(size) + " is " + std::to_string(where % size) +
             " (the GPU stops with \"misaligned address\"): check the pointer arithmetic "
             "before the cast");
}

void Launch::sequence(RawProblem& p, rt::Access mine, rt::Access other, bool other_first,
                      std::string target) {
  p.access = mine;
  p.other_access = other;
  p.other_first = other_first;
  p.target = std::move(target);
}

void Launch::read_after_write(const Shadow& s, std::uint64_t pc, int var) {
  if (s.w_thread == kAtomicThread || separated_by_syncwarp(s.w_thread, s.w_wepoch)) return;
  const std::string name = "`" + layout_.vars[static_cast<std::size_t>(var)].name + "`";
  RawProblem* p =
      report("race", false, pc, pc64(s.w_pc), current_, s.w_thread, var,
             "another thread wrote " + name +
                 ", then this thread read it, with no __syncthreads() in between (a "
                 "read-after-write race: on the GPU the read may come first); separate the write "
                 "and the read with a __syncthreads()");
  if (p != nullptr) sequence(*p, rt::Access::kRead, rt::Access::kWrite, true, name);
}

void Launch::write_after_read(const Shadow& s, std::uint64_t pc, int var) {
  if (s.r_thread != kManyThreads && separated_by_syncwarp(s.r_thread, s.r_wepoch)) return;
  const std::string name = "`" + layout_.vars[static_cast<std::size_t>(var)].name + "`";
  RawProblem* p =
      report("race", false, pc, pc64(s.r_pc), current_,
             s.r_thread == kManyThreads ? kNoThread : s.r_thread, var,
             "another thread read " + name +
                 ", then this thread wrote it, with no __syncthreads() in between (a "
                 "write-after-read race: on the GPU the write may come first, and the reader see "
                 "the new value); separate the read and the write with a __syncthreads()");
  if (p != nullptr) sequence(*p, rt::Access::kWrite, rt::Access::kRead, true, name);
}

void Launch::write_after_write(const Shadow& s, std::uint32_t offset, std::uint32_t size,
                               std::uint64_t pc) {
  if (s.w_thread == kAtomicThread || separated_by_syncwarp(s.w_thread, s.w_wepoch)) return;
  if (pending_.active || size > sizeof(pending_.old_bytes)) return;
  // Two threads write the same bytes in one interval: a race unless they write the same value.
  // The value is known only after the store, so decide at the thread's next event.
  pending_.active = true;
  pending_.offset = offset;
  pending_.size = size;
  std::memcpy(pending_.old_bytes, reinterpret_cast<void*>(g_arena_lo + offset), size);
  pending_.pc = pc;
  pending_.other_pc = pc64(s.w_pc);
  pending_.other_thread = s.w_thread;
}

void Launch::resolve_pending() {
  if (!pending_.active) return;
  pending_.active = false;
  const bool same =
      std::memcmp(pending_.old_bytes, reinterpret_cast<void*>(g_arena_lo + pending_.offset),
                  pending_.size) == 0;
  const int var = var_at(pending_.offset);
  const std::string name =
      var >= 0 ? layout_.vars[static_cast<std::size_t>(var)].name : std::string("?");
  if (same) {
    report("same_value_write", true, pending_.pc, pending_.other_pc, current_,
           pending_.other_thread, var,
           "several threads write the same value to `" + name +
               "` in one barrier interval (benign, but each write costs a store)");
  } else {
    RawProblem* p =
        report("race", false, pending_.pc, pending_.other_pc, current_, pending_.other_thread, var,
               "two threads write different values to the same bytes of `" + name +
                   "` with no __syncthreads() in between: which one wins is undefined");
    if (p != nullptr) sequence(*p, rt::Access::kWrite, rt::Access::kWrite, true, "`" + name + "`");
  }
}

void Launch::atomic_access(std::uintptr_t address, std::uint32_t size, Op op, std::uint64_t pc) {
  Thread* t = current_;
  if (t == nullptr) return;
  g_last_pc = pc;
  check_abort();
  const std::uintptr_t off = address - g_arena_lo;
  if (off >= g_arena_size) {
    global_access(address, size, Op::kStore, pc);
    return;
  }
  const auto offset = static_cast<std::uint32_t>(off);
  const int var = var_at(offset);
  if (var < 0 || var_at(offset + size - 1) != var) {
    report("out_of_bounds", false, pc, 0, t, kNoThread, var, describe_oob(offset, size));
    request_abort("atomic operation on an invalid shared address");
    return;
  }
  if (offset % size != 0) {
    misaligned(offset, size, pc, var);
    return;
  }
  bool uninit = false;
  for_each_cell(offset, size, [&](Shadow& s, std::uint32_t) {
    uninit |= s.w_interval < block_first_interval_;
    s.w_interval = interval_;
    s.w_thread = kAtomicThread;
    s.w_pc = pc32(pc);
  });
  if (uninit) {
    report("uninitialized_read", false, pc, 0, t, kNoThread, var,
           "atomic update of shared memory that no thread of this block has initialised (`" +
               layout_.vars[static_cast<std::size_t>(var)].name +
               "`): zero it first, then __syncthreads()");
  }
  // Traced like any shared access: atomics have bank conflicts too (docs/bank-rules.md R6).
  trace(t, pc, offset, size, op, 0);
}

// ---- Global memory --------------------------------------------------------------------------

bool Launch::known_memory(std::uintptr_t a) {
  for (const Region& r : known_) {
    if (a >= r.lo && a < r.hi) {
      ok_regions_[next_ok_++ % kRegionCache] = r;
      return true;
    }
  }
  return false;
}

void Launch::global_access_slow(std::uintptr_t address, std::uint32_t size, Op op,
                                std::uint64_t pc) {
  const auto traced = [&] { trace_global(address, size, op, pc); };
  check_abort();
  {
    std::lock_guard<std::mutex> lock(g_buffers_mutex);
    auto it = g_buffers.upper_bound(address);
    // The buffer starting after the address (for accesses in its front guard) and the one
    // starting at or before it.
    if (it != g_buffers.begin()) {
      const Buffer& b = std::prev(it)->second;
      if (address + size <= b.lo + b.bytes) {
        buf_regions_[next_buf_++ % kRegionCache] = Region{b.lo, b.lo + b.bytes};
        return traced();
      }
      if (address < b.lo + b.bytes + kGuardBytes) {
        report("out_of_bounds", false, pc, 0, current_, kNoThread, -1,
               std::string("global-memory ") + (op == Op::kLoad ? "read" : "write") + " of " +
                   std::to_string(size) + " bytes, " +
                   std::to_string(address + size - (b.lo + b.bytes)) + " bytes past the end of a " +
                   std::to_string(b.bytes) +
                   "-byte device buffer: check the bounds test (e.g. `if (i < n)`) for sizes "
                   "that are not a multiple of the block size");
        return;
      }
    }
    if (it != g_buffers.end() && address + kGuardBytes >= it->second.lo) {
      report("out_of_bounds", false, pc, 0, current_, kNoThread, -1,
             std::string("global-memory ") + (op == Op::kLoad ? "read" : "write") + " " +
                 std::to_string(it->second.lo - address) + " bytes before the start of a " +
                 std::to_string(it->second.bytes) + "-byte device buffer (negative index?)");
      return;
    }
  }
  if (known_memory(address)) return;
  char hex[32];
  std::snprintf(hex, sizeof hex, "%#lx", static_cast<unsigned long>(address));
  report("out_of_bounds", false, pc, 0, current_, kNoThread, -1,
         std::string("global-memory ") + (op == Op::kLoad ? "read" : "write") + " at " + hex +
             ", which is in no device buffer (a null, host or wild pointer): the launch was "
             "stopped here");
  request_abort("a thread accessed memory outside every device buffer");
}

}  // namespace banksim::rt::detail

namespace banksim::rt::detail {
std::mutex g_buffers_mutex;
std::map<std::uintptr_t, Buffer> g_buffers;
}  // namespace banksim::rt::detail
