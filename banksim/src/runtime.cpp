// runtime.cpp - banksim's engine: fibers, tracing hooks, warp grouping, shadow memory.
//
// Execution model. A launch runs block after block. In a block every CUDA thread is a
// Boost.Context fiber; the scheduler runs warp 0's lanes one after another until each reaches a
// __syncthreads (or returns), then warp 1's, and so on. When every warp is at the barrier the
// barrier interval ends, the interval counter moves on and all threads resume. __syncwarp and
// the shuffles are warp-level rendezvous handled the same way inside one warp.
//
// Tracing. The kernel is compiled with AddressSanitizer in callback mode, so every load and
// store calls __asan_loadN/__asan_storeN(address) first; those hooks (below) record shared
// accesses as (program counter, offset, size, op) in the running thread's trace and check the
// rest. A warp's traces are zipped into warp requests when the warp reaches a barrier: the
// k-th execution of an instruction by each lane forms one request (DESIGN: "group a warp
// request by (warp, call site, n-th execution of that site by each lane)").
//
// Shadow memory. Every byte of the shared arena has a shadow cell: the block and barrier
// interval of its last write and who made it, and the last reader. Threads run one after
// another, so any two accesses of the same byte by different threads in the same interval, at
// least one a write, are reported as a race (unless a __syncwarp separates two lanes of one warp).
#include "banksim/runtime.hpp"

#include <dlfcn.h>
#include <link.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <boost/context/fiber.hpp>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <unordered_map>

extern "C" {
uint3 threadIdx;
uint3 blockIdx;
dim3 blockDim;
dim3 gridDim;
}

namespace banksim::rt {
namespace {

namespace ctx = boost::context;
using bankmodel::Op;

constexpr std::uint16_t kNoThread = 0xffff;
constexpr std::uint16_t kManyThreads = 0xfffe;
constexpr std::uint16_t kAtomicThread = 0xfffd;
constexpr std::size_t kGuardBytes = 4096;                         // around each device buffer
constexpr std::size_t kMaxTracePerThread = std::size_t{1} << 24;  // 16 M accesses per interval

/// Thrown inside a fiber to stop the launch (timeout, wild pointer); caught at the fiber's base.
struct KernelAbort {};

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
    ctx::stack_context sc;
    sc.size = kStackBytes;
    sc.sp = base_ + slot * kSlotBytes + kSlotBytes;  // stacks grow down from the slot's end
    return sc;
  }
  void deallocate(ctx::stack_context& sc) noexcept {
    const auto top = static_cast<char*>(sc.sp);
    free_.push_back(static_cast<unsigned>((top - base_) / kSlotBytes - 1));
  }
  bool contains(std::uintptr_t a) const {
    return a >= reinterpret_cast<std::uintptr_t>(base_) &&
           a < reinterpret_cast<std::uintptr_t>(base_) + size_;
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

StackPool& stack_pool() {
  static StackPool pool;
  return pool;
}

// ---- Device buffers -------------------------------------------------------------------------
struct Buffer {
  std::uintptr_t lo;  // first user byte
  std::size_t bytes;
  void* allocation;
};
std::mutex g_buffers_mutex;
std::map<std::uintptr_t, Buffer> g_buffers;  // by lo

// ---- One access in a thread's trace ---------------------------------------------------------
struct Access {
  std::uint64_t pc;
  std::uint32_t offset;
  std::uint8_t size;
  std::uint8_t op;  // 0 load, 1 store
  std::uint16_t sub;
};

// Trace buffers, one per lane: a warp runs to its barrier and is flushed before the next warp
// runs, so lanes of different warps can share them; kept across launches to avoid page faults.
std::array<std::vector<Access>, bankmodel::kWarpSize>& lane_traces() {
  static std::array<std::vector<Access>, bankmodel::kWarpSize> traces;
  return traces;
}

enum class State : std::uint8_t { kRunnable, kAtBarrier, kAtWarpSync, kDone };

struct Thread {
  ctx::fiber fiber;
  ctx::fiber scheduler;  // valid while this thread runs
  uint3 tid{0, 0, 0};
  std::uint16_t linear = 0;
  std::uint16_t warp = 0;
  std::uint8_t lane = 0;
  State state = State::kRunnable;
  std::uint64_t barrier_pc = 0;
  std::vector<Access>* trace = nullptr;  // its lane's buffer (lane_traces())
  // Warp rendezvous (__syncwarp, shuffles, ballots).
  unsigned x_mask = 0;
  unsigned long long x_value = 0;
  unsigned long long x_result = 0;
  int x_src = 0;
  int x_mode = 0;  // 0 shuffle, 1 ballot, 2 plain __syncwarp
  std::uint64_t x_pc = 0;
};

// Shadow of one byte of shared memory (24 bytes). Intervals are numbered across the whole launch,
// so a write from an earlier block is simply an interval before the block's first one.
struct Shadow {
  std::uint32_t w_interval = 0;  // barrier interval of the last write (0 = never)
  std::uint32_t r_interval = 0;  // barrier interval of the last read
  std::uint32_t w_pc = 0;        // program counters, relative to the module's arena base
  std::uint32_t r_pc = 0;
  std::uint16_t w_thread = kNoThread;
  std::uint16_t r_thread = kNoThread;
  std::uint16_t w_wepoch = 0;  // the writer's warp epoch (__syncwarp count)
  std::uint16_t r_wepoch = 0;
};
static_assert(sizeof(Shadow) == 24, "keep the shadow small: it is touched on every access");

struct PendingWrite {
  bool active = false;
  std::uint32_t offset = 0;
  std::uint32_t size = 0;
  unsigned char old_bytes[16] = {};
  std::uint64_t pc = 0;
  std::uint64_t other_pc = 0;
  std::uint16_t other_thread = 0;
};

struct Region {
  std::uintptr_t lo;
  std::uintptr_t hi;
};

class Launch;
Launch* g_launch = nullptr;
std::uintptr_t g_arena_lo = 0;
std::uint64_t g_arena_size = 0;
std::atomic<bool> g_abort_requested{false};
std::uint64_t g_last_pc = 0;
EmergencyHandler g_emergency = nullptr;

class Launch {
 public:
  Launch(const ModuleLayout& layout, const KernelEntry& entry, void** args,
         const RunOptions& options)
      : layout_(layout), entry_(entry), args_(args), options_(options) {}

  RunResult run();

  // Hooks.
  void shared_access(std::uint32_t offset, std::uint32_t size, Op op, std::uint64_t pc,
                     std::uint16_t sub);
  void global_access(std::uintptr_t address, std::uint32_t size, Op op, std::uint64_t pc);
  void atomic_access(std::uintptr_t address, std::uint32_t size, std::uint64_t pc);
  int syncthreads(std::uint64_t pc, int predicate);
  unsigned long long warp_rendezvous(unsigned mask, unsigned long long value, int src, int mode,
                                     std::uint64_t pc);
  void request_abort(const std::string& reason) {
    if (result_.abort_reason.empty()) result_.abort_reason = reason;
    result_.completed = false;
    throw KernelAbort{};
  }
  void check_abort() {
    if (g_abort_requested.load(std::memory_order_relaxed)) {
      char seconds[32];
      std::snprintf(seconds, sizeof seconds, "%.1f", options_.timeout_s);
      request_abort(std::string("timeout: the kernel did not finish within ") + seconds +
                    " s (an infinite loop, or a barrier some threads never reach?)");
    }
  }
  Thread* current() const { return current_; }
  uint3 current_block() const { return block_idx_; }

 private:
  void run_block(uint3 block);
  void run_warp(unsigned warp);
  void resume(Thread& t);
  void release_warp_sync(unsigned warp);
  void flush_warp(unsigned warp);
  void add_request(const Access* const* lane_access, const bankmodel::Request& request);
  void resolve_pending();
  bool separated_by_syncwarp(std::uint16_t other, std::uint16_t other_epoch) const;
  void uninitialized(std::uint32_t offset, std::uint64_t pc, int var);
  void read_after_write(const Shadow& s, std::uint64_t pc, int var);
  void write_after_read(const Shadow& s, std::uint64_t pc, int var);
  void write_after_write(const Shadow& s, std::uint32_t offset, std::uint32_t size,
                         std::uint64_t pc);
  void report(const std::string& kind, bool warning, std::uint64_t pc, std::uint64_t other_pc,
              const Thread* t, std::uint16_t other_thread, int var, const std::string& message);
  uint3 tid_of(std::uint16_t linear) const {
    const unsigned bx = options_.block.x;
    const unsigned by = options_.block.y;
    return uint3{linear % bx, (linear / bx) % by, linear / (bx * by)};
  }
  int var_at(std::uint32_t offset) const { return offset < owner_.size() ? owner_[offset] : -1; }
  std::uint32_t pc32(std::uint64_t pc) const { return static_cast<std::uint32_t>(pc - pc_base_); }
  std::uint64_t pc64(std::uint32_t pc) const { return pc == 0 ? 0 : pc_base_ + pc; }
  std::string describe_oob(std::uint32_t offset, std::uint32_t size) const;
  bool known_memory(std::uintptr_t a);

  const ModuleLayout& layout_;
  const KernelEntry& entry_;
  void** args_;
  RunOptions options_;
  RunResult result_;

  std::vector<Thread> threads_;
  unsigned num_threads_ = 0;
  unsigned num_warps_ = 0;
  Thread* current_ = nullptr;
  uint3 block_idx_{0, 0, 0};
  std::uint32_t block_serial_ = 0;
  std::uint32_t interval_ = 0;
  std::uint32_t block_first_interval_ = 0;  // writes before it are from other blocks
  std::uint64_t pc_base_ = 0;               // shadow pcs are stored relative to this
  std::vector<std::uint16_t> warp_epoch_;

  std::vector<std::int16_t> owner_;  // var index per arena byte, -1 = red zone / padding
  std::vector<Shadow> shadow_;
  PendingWrite pending_;

  std::unordered_map<std::uint64_t, std::size_t> site_index_;  // (pc, sub) -> sites
  std::vector<SiteStats> sites_;
  std::map<std::string, std::size_t> problem_index_;
  std::vector<Region> known_;  // loaded images and fiber stacks
  Region last_ok_{0, 0};
};

// ---- Running --------------------------------------------------------------------------------

RunResult Launch::run() {
  const auto start = std::chrono::steady_clock::now();
  num_threads_ = options_.block.x * options_.block.y * options_.block.z;
  num_warps_ = (num_threads_ + bankmodel::kWarpSize - 1) / bankmodel::kWarpSize;
  // The shared arena's owner map: variables, with the dynamic area cut to the launch's size.
  // Only the used part of the arena gets an owner map and a shadow (the 227 KiB dynamic area is
  // cut to the launch's size); an access beyond it is out of bounds.
  std::uint32_t used = 0;
  for (const SharedVar& var : layout_.vars) {
    const std::uint32_t size =
        var.dynamic ? static_cast<std::uint32_t>(options_.dynamic_smem) : var.size;
    used = std::max(used, std::min(layout_.arena_size, var.offset + size + 128));
  }
  owner_.assign(used, -1);
  for (std::size_t v = 0; v < layout_.vars.size(); ++v) {
    const SharedVar& var = layout_.vars[v];
    const std::uint32_t size =
        var.dynamic ? static_cast<std::uint32_t>(options_.dynamic_smem) : var.size;
    std::fill(owner_.begin() + var.offset, owner_.begin() + var.offset + size,
              static_cast<std::int16_t>(v));
  }
  shadow_.assign(used, Shadow{});
  // Memory a kernel may legitimately touch besides shared memory and device buffers: the
  // loaded images (globals, __constant__ data) and the fiber stacks (locals).
  dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t, void* data) {
        auto* known = static_cast<std::vector<Region>*>(data);
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          const auto& ph = info->dlpi_phdr[i];
          if (ph.p_type != PT_LOAD) continue;
          const std::uintptr_t lo = info->dlpi_addr + ph.p_vaddr;
          known->push_back(Region{lo, lo + ph.p_memsz});
        }
        return 0;
      },
      &known_);
  threads_.resize(num_threads_);
  warp_epoch_.assign(num_warps_, 0);
  // Code of the module lies within 2 GiB of its data: pcs fit in 32 bits relative to this.
  pc_base_ = layout_.arena_lo - (std::uint64_t{1} << 31);
  gridDim = options_.grid;
  blockDim = options_.block;
  for (unsigned z = 0; z < options_.grid.z && result_.completed; ++z) {
    for (unsigned y = 0; y < options_.grid.y && result_.completed; ++y) {
      for (unsigned x = 0; x < options_.grid.x && result_.completed; ++x) {
        run_block(uint3{x, y, z});
      }
    }
  }
  result_.sites = std::move(sites_);
  result_.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return std::move(result_);
}

void Launch::resume(Thread& t) {
  current_ = &t;
  threadIdx = t.tid;
  t.fiber = std::move(t.fiber).resume();
  current_ = nullptr;
}

void Launch::run_block(uint3 block) {
  block_idx_ = block;
  blockIdx = block;
  ++block_serial_;
  ++interval_;
  block_first_interval_ = interval_;
  std::fill(warp_epoch_.begin(), warp_epoch_.end(), 0);
  PoolAllocator alloc{&stack_pool()};
  for (unsigned i = 0; i < num_threads_; ++i) {
    Thread& t = threads_[i];
    t.linear = static_cast<std::uint16_t>(i);
    t.tid = tid_of(t.linear);
    t.warp = static_cast<std::uint16_t>(i / bankmodel::kWarpSize);
    t.lane = static_cast<std::uint8_t>(i % bankmodel::kWarpSize);
    t.state = State::kRunnable;
    t.trace = &lane_traces()[t.lane];
    t.trace->clear();
    t.fiber = ctx::fiber(std::allocator_arg, alloc, [this, &t](ctx::fiber&& scheduler) {
      t.scheduler = std::move(scheduler);
      try {
        entry_.invoke(entry_.function, args_);
      } catch (const KernelAbort&) {
        // the launch stops; the reason is already recorded
      }
      resolve_pending();
      t.state = State::kDone;
      return std::move(t.scheduler);
    });
  }
  ++result_.threads;
  result_.threads += num_threads_ - 1;
  for (;;) {
    for (unsigned w = 0; w < num_warps_ && result_.completed; ++w) {
      run_warp(w);
      if (result_.completed) flush_warp(w);  // after an abort the traces are incomplete
    }
    if (!result_.completed) break;
    unsigned done = 0;
    unsigned waiting = 0;
    const Thread* first_waiting = nullptr;
    const Thread* first_done = nullptr;
    const Thread* other_site = nullptr;
    for (unsigned i = 0; i < num_threads_; ++i) {
      const Thread& t = threads_[i];
      if (t.state == State::kDone) {
        ++done;
        if (first_done == nullptr) first_done = &t;
      } else {
        ++waiting;
        if (first_waiting == nullptr) {
          first_waiting = &t;
        } else if (other_site == nullptr && t.barrier_pc != first_waiting->barrier_pc) {
          other_site = &t;
        }
      }
    }
    if (waiting == 0) break;
    if (done > 0) {
      report("barrier_divergence", false, first_waiting->barrier_pc, 0, first_waiting,
             first_done->linear, -1,
             "__syncthreads() reached by " + std::to_string(waiting) + " of " +
                 std::to_string(num_threads_) +
                 " threads of the block; the others had returned (e.g. thread (" +
                 std::to_string(first_done->tid.x) + "," + std::to_string(first_done->tid.y) + "," +
                 std::to_string(first_done->tid.z) +
                 ")). Every thread must reach every barrier: move the early `return` after the "
                 "barrier or guard only the work, not the barrier");
    }
    if (other_site != nullptr) {
      report("barrier_divergence", false, first_waiting->barrier_pc, other_site->barrier_pc,
             first_waiting, other_site->linear, -1,
             "threads of one block wait at different __syncthreads() calls: a barrier inside "
             "divergent code (if/else) is undefined behaviour on the GPU");
    }
    ++interval_;
    unsigned long long count = 0;  // for __syncthreads_count/_and/_or
    for (unsigned i = 0; i < num_threads_; ++i) {
      if (threads_[i].state == State::kAtBarrier) count += threads_[i].x_value;
    }
    for (unsigned i = 0; i < num_threads_; ++i) {
      if (threads_[i].state == State::kAtBarrier) {
        threads_[i].state = State::kRunnable;
        threads_[i].x_result = count;
      }
    }
  }
  // Drop what is left of the fibers (after an abort they are suspended mid-kernel; destroying
  // them unwinds their stacks).
  for (unsigned i = 0; i < num_threads_; ++i) {
    threads_[i].fiber = ctx::fiber{};
    threads_[i].trace->clear();
  }
  pending_.active = false;
}

void Launch::run_warp(unsigned warp) {
  const unsigned first = warp * bankmodel::kWarpSize;
  const unsigned last = std::min(first + bankmodel::kWarpSize, num_threads_);
  for (;;) {
    for (unsigned i = first; i < last && result_.completed; ++i) {
      if (threads_[i].state == State::kRunnable) resume(threads_[i]);
    }
    if (!result_.completed) return;
    bool any_sync = false;
    for (unsigned i = first; i < last; ++i) any_sync |= threads_[i].state == State::kAtWarpSync;
    if (!any_sync) return;
    release_warp_sync(warp);
  }
}

void Launch::release_warp_sync(unsigned warp) {
  const unsigned first = warp * bankmodel::kWarpSize;
  const unsigned last = std::min(first + bankmodel::kWarpSize, num_threads_);
  // Lanes in the waiting lanes' masks that are neither waiting nor done never will be: they sit
  // at a __syncthreads. Report, then release anyway so the run can go on.
  unsigned waiting_mask = 0;
  unsigned wanted_mask = 0;
  const Thread* sample = nullptr;
  for (unsigned i = first; i < last; ++i) {
    const Thread& t = threads_[i];
    if (t.state == State::kAtWarpSync) {
      waiting_mask |= 1u << t.lane;
      wanted_mask |= t.x_mask;
      if (sample == nullptr) sample = &t;
    }
  }
  for (unsigned i = first; i < last; ++i) {
    const Thread& t = threads_[i];
    if (((wanted_mask >> t.lane) & 1u) != 0 && t.state == State::kAtBarrier) {
      report("barrier_divergence", false, sample->x_pc, t.barrier_pc, sample, t.linear, -1,
             "a warp-level operation (__syncwarp or a __shfl/__ballot) names lanes of its mask "
             "that are waiting at __syncthreads() instead: all lanes in the mask must execute it");
      break;
    }
  }
  ++warp_epoch_[warp];
  unsigned ballot = 0;
  for (unsigned i = first; i < last; ++i) {
    const Thread& t = threads_[i];
    if (t.state == State::kAtWarpSync && t.x_mode == 1 && t.x_value != 0) ballot |= 1u << t.lane;
  }
  for (unsigned i = first; i < last; ++i) {
    Thread& t = threads_[i];
    if (t.state != State::kAtWarpSync) continue;
    if (t.x_mode == 0) {
      const unsigned src = first + static_cast<unsigned>(t.x_src);
      const bool ok = t.x_src >= 0 && src < last && ((waiting_mask >> t.x_src) & 1u) != 0;
      t.x_result = ok ? threads_[src].x_value : t.x_value;
    } else {
      t.x_result = ballot;
    }
    t.state = State::kRunnable;
  }
}

// ---- Warp requests --------------------------------------------------------------------------

void Launch::flush_warp(unsigned warp) {
  const unsigned first = warp * bankmodel::kWarpSize;
  const unsigned last = std::min(first + bankmodel::kWarpSize, num_threads_);
  const std::size_t n = threads_[first].trace->size();
  bool uniform = true;  // every lane ran the same instructions in the same order
  for (unsigned i = first + 1; i < last && uniform; ++i) {
    const auto& a = *threads_[first].trace;
    const auto& b = *threads_[i].trace;
    if (b.size() != n) {
      uniform = false;
      break;
    }
    for (std::size_t k = 0; k < n; ++k) {
      if (a[k].pc != b[k].pc || a[k].sub != b[k].sub) {
        uniform = false;
        break;
      }
    }
  }
  const Access* lane_access[bankmodel::kWarpSize];
  if (uniform) {
    for (std::size_t k = 0; k < n; ++k) {
      const Access& a0 = (*threads_[first].trace)[k];
      bankmodel::Request r(a0.op == 0 ? Op::kLoad : Op::kStore, a0.size);
      std::fill(std::begin(lane_access), std::end(lane_access), nullptr);
      for (unsigned i = first; i < last; ++i) {
        const Access& a = (*threads_[i].trace)[k];
        r.set_lane(static_cast<int>(i - first), a.offset);
        lane_access[i - first] = &a;
      }
      add_request(lane_access, r);
    }
  } else {
    // Divergent lanes: the k-th execution of (pc, sub) by each lane forms request k of that site.
    struct Pending {
      bankmodel::Request request;
      const Access* lanes[bankmodel::kWarpSize];
    };
    std::vector<Pending> requests;
    std::map<std::tuple<std::uint64_t, std::uint16_t, std::uint64_t>, std::size_t> index;
    for (unsigned i = first; i < last; ++i) {
      std::map<std::pair<std::uint64_t, std::uint16_t>, std::uint64_t> seen;
      for (const Access& a : *threads_[i].trace) {
        const std::uint64_t k = seen[{a.pc, a.sub}]++;
        const auto key = std::make_tuple(a.pc, a.sub, k);
        auto it = index.find(key);
        if (it == index.end()) {
          it = index.emplace(key, requests.size()).first;
          requests.push_back(
              Pending{bankmodel::Request(a.op == 0 ? Op::kLoad : Op::kStore, a.size), {}});
        }
        Pending& p = requests[it->second];
        if (a.size == p.request.width()) {
          p.request.set_lane(static_cast<int>(i - first), a.offset);
          p.lanes[i - first] = &a;
        }
      }
    }
    for (const Pending& p : requests) add_request(p.lanes, p.request);
  }
  for (unsigned i = first; i < last; ++i) threads_[i].trace->clear();
}

void Launch::add_request(const Access* const* lane_access, const bankmodel::Request& request) {
  const Access* any = nullptr;
  for (int i = 0; i < bankmodel::kWarpSize && any == nullptr; ++i) any = lane_access[i];
  if (any == nullptr) return;
  const std::uint64_t key = any->pc * 64 + any->sub;
  auto it = site_index_.find(key);
  if (it == site_index_.end()) {
    it = site_index_.emplace(key, sites_.size()).first;
    SiteStats s;
    s.pc = any->pc;
    s.sub = any->sub;
    s.op = request.op();
    s.bytes = request.width();
    s.var = var_at(any->offset);
    sites_.push_back(s);
  }
  SiteStats& s = sites_[it->second];
  const bankmodel::Summary sum = bankmodel::count_wavefronts(request);
  s.requests += 1;
  s.wavefronts += static_cast<std::uint64_t>(sum.wavefronts);
  s.ideal += static_cast<std::uint64_t>(sum.ideal);
  if (sum.excess() > s.worst_excess) {
    s.worst_excess = sum.excess();
    s.worst = request;
  }
}

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

void Launch::shared_access(std::uint32_t offset, std::uint32_t size, Op op, std::uint64_t pc,
                           std::uint16_t sub) {
  Thread* t = current_;
  if (t == nullptr) return;  // host code touching shared variables: not a kernel access
  g_last_pc = pc;
  if (pending_.active) resolve_pending();
  check_abort();
  const std::uint32_t end = offset + size - 1;
  const int var = var_at(offset);
  if (var < 0 || var_at(end) != var) {
    report("out_of_bounds", false, pc, 0, t, kNoThread, var < 0 ? var_at(end) : var,
           describe_oob(var < 0 ? offset : end, size));
    return;  // not traced as a bank access: the hardware would fault
  }
  const std::uint16_t me = t->linear;
  const std::uint16_t epoch = warp_epoch_[t->warp];
  const std::uint32_t my_pc = pc32(pc);
  Shadow* shadow = &shadow_[offset];
  if (op == Op::kLoad) {
    for (std::uint32_t i = 0; i < size; ++i) {
      Shadow& s = shadow[i];
      if (s.w_interval < block_first_interval_) {
        uninitialized(offset + i, pc, var);
      } else if (s.w_interval == interval_ && s.w_thread != me) {
        read_after_write(s, pc, var);
      }
      if (s.r_interval != interval_) {
        s.r_interval = interval_;
        s.r_thread = me;
        s.r_wepoch = epoch;
        s.r_pc = my_pc;
      } else if (s.r_thread != me) {
        s.r_thread = kManyThreads;
      }
    }
  } else {
    for (std::uint32_t i = 0; i < size; ++i) {
      Shadow& s = shadow[i];
      if (s.r_interval == interval_ && s.r_thread != me) write_after_read(s, pc, var);
      if (s.w_interval == interval_ && s.w_thread != me) write_after_write(s, offset, size, pc);
      s.w_interval = interval_;
      s.w_thread = me;
      s.w_wepoch = epoch;
      s.w_pc = my_pc;
    }
  }
  if (t->trace->size() >= kMaxTracePerThread) {
    // A runaway loop, stopped before its trace exhausts memory; reported like a timeout.
    request_abort("timeout: a thread made more than " + std::to_string(kMaxTracePerThread) +
                  " shared-memory accesses between two barriers (an infinite loop?)");
  }
  t->trace->push_back(Access{pc, offset, static_cast<std::uint8_t>(size),
                             static_cast<std::uint8_t>(op == Op::kStore ? 1 : 0), sub});
  ++result_.traced_shared;
}

bool Launch::separated_by_syncwarp(std::uint16_t other, std::uint16_t other_epoch) const {
  const Thread* t = current_;
  return other < num_threads_ && threads_[other].warp == t->warp &&
         other_epoch != warp_epoch_[t->warp];
}

void Launch::uninitialized(std::uint32_t offset, std::uint64_t pc, int var) {
  const SharedVar& v = layout_.vars[static_cast<std::size_t>(var)];
  report("uninitialized_read", false, pc, 0, current_, kNoThread, var,
         "read of shared memory that no thread of this block has written (`" + v.name + "`, byte " +
             std::to_string(offset - v.offset) +
             "): write it before reading, and put a __syncthreads() in between");
}

void Launch::read_after_write(const Shadow& s, std::uint64_t pc, int var) {
  if (s.w_thread == kAtomicThread || separated_by_syncwarp(s.w_thread, s.w_wepoch)) return;
  report("race", false, pc, pc64(s.w_pc), current_, s.w_thread, var,
         "read of `" + layout_.vars[static_cast<std::size_t>(var)].name +
             "` written by another thread since the last __syncthreads(): add a "
             "__syncthreads() between the write and the read");
}

void Launch::write_after_read(const Shadow& s, std::uint64_t pc, int var) {
  if (s.r_thread != kManyThreads && separated_by_syncwarp(s.r_thread, s.r_wepoch)) return;
  report("race", false, pc, pc64(s.r_pc), current_,
         s.r_thread == kManyThreads ? kNoThread : s.r_thread, var,
         "write to `" + layout_.vars[static_cast<std::size_t>(var)].name +
             "` that another thread read since the last __syncthreads(): the reader may see "
             "either value; add a __syncthreads() between the read and the write");
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
    report("race", false, pending_.pc, pending_.other_pc, current_, pending_.other_thread, var,
           "two threads write different values to the same bytes of `" + name +
               "` with no __syncthreads() in between: which one wins is undefined");
  }
}

void Launch::atomic_access(std::uintptr_t address, std::uint32_t size, std::uint64_t pc) {
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
  if (var < 0 || var_at(offset + size - 1) != var || offset % size != 0) {
    report("out_of_bounds", false, pc, 0, t, kNoThread, var, describe_oob(offset, size));
    request_abort("atomic operation on an invalid shared address");
  }
  for (std::uint32_t b = offset; b < offset + size; ++b) {
    if (shadow_[b].w_interval < block_first_interval_) {
      report("uninitialized_read", false, pc, 0, t, kNoThread, var,
             "atomic update of shared memory that no thread of this block has initialised "
             "(`" +
                 layout_.vars[static_cast<std::size_t>(var)].name +
                 "`): zero it first, then __syncthreads()");
      break;
    }
  }
  for (std::uint32_t b = offset; b < offset + size; ++b) {
    Shadow& s = shadow_[b];
    s.w_interval = interval_;
    s.w_thread = kAtomicThread;
    s.w_pc = pc32(pc);
  }
}

// ---- Global memory --------------------------------------------------------------------------

bool Launch::known_memory(std::uintptr_t a) {
  if (stack_pool().contains(a)) return true;
  for (const Region& r : known_) {
    if (a >= r.lo && a < r.hi) {
      last_ok_ = r;
      return true;
    }
  }
  return false;
}

void Launch::global_access(std::uintptr_t address, std::uint32_t size, Op op, std::uint64_t pc) {
  if (current_ == nullptr) return;
  if (address >= last_ok_.lo && address + size <= last_ok_.hi) return;
  check_abort();
  {
    std::lock_guard<std::mutex> lock(g_buffers_mutex);
    auto it = g_buffers.upper_bound(address);
    // The buffer starting after the address (for accesses in its front guard) and the one
    // starting at or before it.
    if (it != g_buffers.begin()) {
      const Buffer& b = std::prev(it)->second;
      if (address + size <= b.lo + b.bytes) {
        last_ok_ = Region{b.lo, b.lo + b.bytes};
        return;
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

// ---- Barriers and warp rendezvous ----------------------------------------------------------

int Launch::syncthreads(std::uint64_t pc, int predicate) {
  Thread* t = current_;
  if (t == nullptr) return 0;
  resolve_pending();
  check_abort();
  t->state = State::kAtBarrier;
  t->barrier_pc = pc;
  t->x_value = predicate != 0 ? 1 : 0;
  t->scheduler = std::move(t->scheduler).resume();
  check_abort();
  return static_cast<int>(t->x_result);
}

unsigned long long Launch::warp_rendezvous(unsigned mask, unsigned long long value, int src,
                                           int mode, std::uint64_t pc) {
  Thread* t = current_;
  if (t == nullptr) return value;
  resolve_pending();
  check_abort();
  t->state = State::kAtWarpSync;
  t->x_mask = mask;
  t->x_value = value;
  t->x_src = src;
  t->x_mode = mode;
  t->x_pc = pc;
  t->scheduler = std::move(t->scheduler).resume();
  check_abort();
  return t->x_result;
}

void Launch::report(const std::string& kind, bool warning, std::uint64_t pc, std::uint64_t other_pc,
                    const Thread* t, std::uint16_t other_thread, int var,
                    const std::string& message) {
  const std::string key = kind + ":" + std::to_string(pc) + ":" + std::to_string(other_pc);
  auto it = problem_index_.find(key);
  if (it != problem_index_.end()) {
    result_.problems[it->second].count += 1;
    return;
  }
  problem_index_.emplace(key, result_.problems.size());
  RawProblem p;
  p.kind = kind;
  p.warning = warning;
  p.pc = pc;
  p.other_pc = other_pc;
  p.block = block_idx_;
  if (t != nullptr) p.thread = t->tid;
  if (other_thread < num_threads_) {
    p.other_thread = tid_of(other_thread);
    p.has_other_thread = true;
  }
  p.var = var;
  p.message = message;
  result_.problems.push_back(std::move(p));
}

// ---- Process-level guards: watchdog, crash signals, exit() -----------------------------------

std::string where_now() {
  char buf[160];
  if (g_launch != nullptr && g_launch->current() != nullptr) {
    const uint3 b = g_launch->current_block();
    const uint3 t = g_launch->current()->tid;
    std::snprintf(buf, sizeof buf, " in block (%u,%u,%u), thread (%u,%u,%u)", b.x, b.y, b.z, t.x,
                  t.y, t.z);
    return buf;
  }
  return "";
}

[[noreturn]] void emergency_exit(const char* kind, const std::string& message, int code) {
  std::fprintf(stderr, "banksim: %s%s\n", message.c_str(), where_now().c_str());
  std::fflush(stderr);
  if (g_emergency != nullptr) g_emergency(kind, message.c_str(), g_last_pc);
  _exit(code);
}

void on_crash_signal(int sig) {
  if (g_launch == nullptr) {
    signal(sig, SIG_DFL);
    raise(sig);
    return;
  }
  const char* what = sig == SIGSEGV   ? "a segmentation fault (SIGSEGV): a bad pointer, or a "
                                        "local array too large for a fiber's 64 KiB stack"
                     : sig == SIGBUS  ? "a bus error (SIGBUS)"
                     : sig == SIGFPE  ? "an arithmetic exception (SIGFPE): integer division by 0?"
                     : sig == SIGABRT ? "abort() (SIGABRT): a failed assert or trap?"
                                      : "an illegal instruction (SIGILL)";
  emergency_exit("crash", std::string("the kernel crashed with ") + what, 128 + sig);
}

void on_exit_during_launch() {
  if (g_launch != nullptr) {
    emergency_exit("crash", "the kernel called exit() during the launch", 3);
  }
}

void install_process_guards() {
  static bool installed = false;
  if (installed) return;
  installed = true;
  static std::vector<char> alt_stack(1 << 16);
  stack_t ss{};
  ss.ss_sp = alt_stack.data();
  ss.ss_size = alt_stack.size();
  sigaltstack(&ss, nullptr);
  struct sigaction sa {};
  sa.sa_handler = on_crash_signal;
  sa.sa_flags = SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) sigaction(sig, &sa, nullptr);
  std::atexit(on_exit_during_launch);
}

class Watchdog {
 public:
  explicit Watchdog(double seconds) {
    thread_ = std::thread([this, seconds] {
      std::unique_lock<std::mutex> lock(mutex_);
      const auto limit = std::chrono::duration<double>(seconds);
      if (cv_.wait_for(lock, limit, [this] { return done_; })) return;
      g_abort_requested = true;  // the hooks stop the kernel at its next memory access
      if (cv_.wait_for(lock, std::chrono::seconds(2), [this] { return done_; })) return;
      // No memory access for 2 s: a loop on registers only. Nothing to unwind: stop the process.
      char msg[200];
      std::snprintf(msg, sizeof msg,
                    "timeout: the kernel did not finish within %.1f s and made no memory access "
                    "for 2 s (an infinite loop?)",
                    seconds);
      emergency_exit("timeout", msg, 124);
    });
  }
  ~Watchdog() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      done_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  bool done_ = false;
  std::thread thread_;
};

// ---- Splitting accesses into naturally aligned pieces (memcpy, packed structs) ---------------

template <typename F>
void for_each_piece(std::uintptr_t address, std::size_t size, F f) {
  std::uint16_t sub = 0;
  while (size > 0) {
    std::size_t w = 16;
    while (w > 1 && (address % w != 0 || w > size)) w /= 2;
    f(address, static_cast<std::uint32_t>(w), sub++);
    address += w;
    size -= w;
  }
}

inline void on_access(std::uintptr_t address, std::size_t size, Op op, std::uint64_t pc) {
  Launch* launch = g_launch;
  if (launch == nullptr) return;
  const std::uintptr_t off = address - g_arena_lo;
  if (off < g_arena_size) {
    if (size <= 16 && (size & (size - 1)) == 0 && off % size == 0) {
      launch->shared_access(static_cast<std::uint32_t>(off), static_cast<std::uint32_t>(size), op,
                            pc, 0);
    } else {
      for_each_piece(address, size, [&](std::uintptr_t a, std::uint32_t w, std::uint16_t sub) {
        launch->shared_access(static_cast<std::uint32_t>(a - g_arena_lo), w, op, pc, sub);
      });
    }
    return;
  }
  launch->global_access(address, static_cast<std::uint32_t>(size), op, pc);
}

}  // namespace

// ---- Public functions -----------------------------------------------------------------------

RunResult run_kernel(const ModuleLayout& layout, const KernelEntry& entry, void** args,
                     const RunOptions& options) {
  if (g_launch != nullptr) throw std::logic_error("banksim: run_kernel is not reentrant");
  install_process_guards();
  Launch launch(layout, entry, args, options);
  g_arena_lo = layout.arena_lo;
  g_arena_size = layout.arena_size;
  g_abort_requested = false;
  g_last_pc = 0;
  RunResult result;
  {
    Watchdog watchdog(options.timeout_s);
    g_launch = &launch;
    try {
      result = launch.run();
    } catch (...) {
      g_launch = nullptr;
      throw;
    }
    g_launch = nullptr;
  }
  return result;
}

void* device_alloc(std::size_t bytes) {
  const std::size_t total = bytes + 2 * kGuardBytes;
  void* p = std::aligned_alloc(4096, (total + 4095) / 4096 * 4096);
  if (p == nullptr) throw std::bad_alloc();
  std::memset(p, 0, total);
  const auto lo = reinterpret_cast<std::uintptr_t>(p) + kGuardBytes;
  std::lock_guard<std::mutex> lock(g_buffers_mutex);
  g_buffers[lo] = Buffer{lo, bytes, p};
  return reinterpret_cast<void*>(lo);
}

void device_free(void* pointer) {
  if (pointer == nullptr) return;
  std::lock_guard<std::mutex> lock(g_buffers_mutex);
  auto it = g_buffers.find(reinterpret_cast<std::uintptr_t>(pointer));
  if (it == g_buffers.end()) return;
  std::free(it->second.allocation);
  g_buffers.erase(it);
}

void set_emergency_handler(EmergencyHandler handler) {
  g_emergency = handler;
}

std::uint64_t last_pc() {
  return g_last_pc;
}

}  // namespace banksim::rt

// ---- The hooks the instrumented kernel calls ------------------------------------------------
// AddressSanitizer in callback mode (-asan-instrumentation-with-call-threshold=0) calls these
// before every load and store; no ASan runtime is linked.

using banksim::rt::on_access;

#define BANKSIM_PC reinterpret_cast<std::uint64_t>(__builtin_return_address(0))
#define BANKSIM_HOOKS(n)                                   \
  extern "C" void __asan_load##n(std::uintptr_t a) {       \
    on_access(a, n, bankmodel::Op::kLoad, BANKSIM_PC);     \
  }                                                        \
  extern "C" void __asan_store##n(std::uintptr_t a) {      \
    on_access(a, n, bankmodel::Op::kStore, BANKSIM_PC);    \
  }                                                        \
  extern "C" void __asan_report_load##n(std::uintptr_t) {} \
  extern "C" void __asan_report_store##n(std::uintptr_t) {}
BANKSIM_HOOKS(1)
BANKSIM_HOOKS(2)
BANKSIM_HOOKS(4)
BANKSIM_HOOKS(8)
BANKSIM_HOOKS(16)
#undef BANKSIM_HOOKS

extern "C" void __asan_loadN(std::uintptr_t a, std::size_t n) {
  on_access(a, n, bankmodel::Op::kLoad, BANKSIM_PC);
}
extern "C" void __asan_storeN(std::uintptr_t a, std::size_t n) {
  on_access(a, n, bankmodel::Op::kStore, BANKSIM_PC);
}
extern "C" void __asan_report_load_n(std::uintptr_t, std::size_t) {}
extern "C" void __asan_report_store_n(std::uintptr_t, std::size_t) {}
extern "C" void* __asan_memcpy(void* d, const void* s, std::size_t n) {
  on_access(reinterpret_cast<std::uintptr_t>(s), n, bankmodel::Op::kLoad, BANKSIM_PC);
  on_access(reinterpret_cast<std::uintptr_t>(d), n, bankmodel::Op::kStore, BANKSIM_PC);
  return std::memcpy(d, s, n);
}
extern "C" void* __asan_memmove(void* d, const void* s, std::size_t n) {
  on_access(reinterpret_cast<std::uintptr_t>(s), n, bankmodel::Op::kLoad, BANKSIM_PC);
  on_access(reinterpret_cast<std::uintptr_t>(d), n, bankmodel::Op::kStore, BANKSIM_PC);
  return std::memmove(d, s, n);
}
extern "C" void* __asan_memset(void* d, int v, std::size_t n) {
  on_access(reinterpret_cast<std::uintptr_t>(d), n, bankmodel::Op::kStore, BANKSIM_PC);
  return std::memset(d, v, n);
}
extern "C" void __asan_init() {}
extern "C" void __asan_version_mismatch_check_v8() {}
extern "C" void __asan_handle_no_return() {}
extern "C" void __asan_register_globals(void*, std::size_t) {}
extern "C" void __asan_unregister_globals(void*, std::size_t) {}
extern "C" void __asan_register_elf_globals(void*, void*, void*) {}
extern "C" void __asan_unregister_elf_globals(void*, void*, void*) {}
extern "C" void __asan_before_dynamic_init(const char*) {}
extern "C" void __asan_after_dynamic_init() {}

// ---- The runtime entry points of banksim/cuda_host.hpp --------------------------------------

namespace {

template <typename T>
T apply_atomic(int op, T* address, T value, T compare) {
  const T old = *address;
  switch (op) {
    case 0:
      *address = old + value;
      break;  // add
    case 1:
      *address = old - value;
      break;  // sub
    case 2:
      *address = value;
      break;  // exch
    case 3:
      *address = value < old ? value : old;
      break;  // min
    case 4:
      *address = value > old ? value : old;
      break;  // max
    case 5:   // inc (wrapping at value)
      if constexpr (std::is_integral<T>::value) *address = old >= value ? 0 : old + 1;
      break;
    case 6:  // dec
      if constexpr (std::is_integral<T>::value) {
        *address = (old == 0 || old > value) ? value : old - 1;
      }
      break;
    case 7:
      *address = old == compare ? value : old;
      break;  // cas
    case 8:
      if constexpr (std::is_integral<T>::value) *address = old & value;
      break;
    case 9:
      if constexpr (std::is_integral<T>::value) *address = old | value;
      break;
    case 10:
      if constexpr (std::is_integral<T>::value) *address = old ^ value;
      break;
    default:
      break;
  }
  return old;
}

template <typename T>
T atomic_entry(int op, void* address, T value, T compare, std::uint64_t pc) {
  if (banksim::rt::g_launch != nullptr) {
    banksim::rt::g_launch->atomic_access(reinterpret_cast<std::uintptr_t>(address), sizeof(T), pc);
  }
  return apply_atomic(op, static_cast<T*>(address), value, compare);
}

}  // namespace

extern "C" void banksim_syncthreads(void) {
  if (banksim::rt::g_launch != nullptr) banksim::rt::g_launch->syncthreads(BANKSIM_PC, 0);
}
extern "C" int banksim_syncthreads_count(int predicate) {
  if (banksim::rt::g_launch == nullptr) return predicate != 0;
  return banksim::rt::g_launch->syncthreads(BANKSIM_PC, predicate);
}
extern "C" void banksim_syncwarp(unsigned mask) {
  if (banksim::rt::g_launch != nullptr) {
    banksim::rt::g_launch->warp_rendezvous(mask, 0, 0, 2, BANKSIM_PC);
  }
}
extern "C" unsigned long long banksim_warp_exchange(unsigned mask, unsigned long long value,
                                                    int src_lane, int mode) {
  if (banksim::rt::g_launch == nullptr) return value;
  return banksim::rt::g_launch->warp_rendezvous(mask, value, src_lane, mode, BANKSIM_PC);
}
extern "C" int banksim_atomic_i32(int op, void* address, int value, int compare) {
  return atomic_entry<int>(op, address, value, compare, BANKSIM_PC);
}
extern "C" unsigned banksim_atomic_u32(int op, void* address, unsigned value, unsigned compare) {
  return atomic_entry<unsigned>(op, address, value, compare, BANKSIM_PC);
}
extern "C" unsigned long long banksim_atomic_u64(int op, void* address, unsigned long long value,
                                                 unsigned long long compare) {
  return atomic_entry<unsigned long long>(op, address, value, compare, BANKSIM_PC);
}
extern "C" float banksim_atomic_f32(int op, void* address, float value) {
  return atomic_entry<float>(op, address, value, 0.0f, BANKSIM_PC);
}
extern "C" double banksim_atomic_f64(int op, void* address, double value) {
  return atomic_entry<double>(op, address, value, 0.0, BANKSIM_PC);
}
extern "C" void* banksim_device_malloc(std::size_t bytes) {
  return banksim::rt::device_alloc(bytes);
}
extern "C" void banksim_device_free(void* pointer) {
  banksim::rt::device_free(pointer);
}
