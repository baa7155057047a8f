// engine.hpp - banksim's engine, shared by its parts (not an API): the launch state (class
// Launch), per-thread records, the shadow of shared memory, and the process-wide globals; the
// fibers' stacks are in stacks.hpp, the lanes' traces in trace.hpp, the hot path's inline
// definitions in engine_inline.hpp. The parts: scheduler.cpp (blocks, warps, fibers and regions),
// requests.cpp (warp traces into warp requests), rendezvous.cpp (barriers and warp rendezvous),
// memory.cpp (shared-memory bounds, races and uninitialised reads; atomics; global memory and
// device buffers), regroup.cpp (nvcc's widths), guards.cpp (watchdog, crash signals, exit()),
// abi.cpp (the instrumentation hooks and the C entry points of banksim/abi.hpp).
#pragma once

#include <dlfcn.h>
#include <link.h>
#include <signal.h>
#include <sys/mman.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <boost/context/fiber.hpp>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "banksim/abi.hpp"
#include "banksim/runtime.hpp"
#include "stacks.hpp"
#include "trace.hpp"

// The CUDA built-in variables, set by the scheduler before it resumes each thread (abi.cpp).
extern "C" {
extern uint3 threadIdx;
extern uint3 blockIdx;
extern dim3 blockDim;
extern dim3 gridDim;
}

namespace banksim::rt::detail {

namespace ctx = boost::context;
using bankmodel::Op;

constexpr std::uint16_t kNoThread = 0xffff;
constexpr std::uint16_t kManyThreads = 0xfffe;
constexpr std::uint16_t kAtomicThread = 0xfffd;
constexpr std::size_t kGuardBytes = 4096;                         // around each device buffer
constexpr std::size_t kMaxTracePerThread = std::size_t{1} << 24;  // 16 M accesses per interval
// Global accesses per thread and barrier interval whose sectors are counted (a long loop over
// global memory without a barrier is counted up to here; the report says the count is partial).
constexpr std::size_t kMaxGlobalTracePerThread = std::size_t{1} << 18;

/// Thrown inside a fiber to stop the launch (timeout, wild pointer); caught at the fiber's base.
struct KernelAbort {};

// ---- Device buffers -------------------------------------------------------------------------
struct Buffer {
  std::uintptr_t lo;  // first user byte
  std::size_t bytes;
  void* allocation;
};
extern std::mutex g_buffers_mutex;
extern std::map<std::uintptr_t, Buffer> g_buffers;  // by lo

enum class State : std::uint8_t { kRunnable, kAtBarrier, kAtWarpSync, kDone };

// Two cache lines: what running and flushing a thread reads in the first (a 1024-thread block's
// records do not fit the L1 cache, and a record across three lines cost a miss more).
struct alignas(64) Thread {
  ctx::fiber fiber;       // its continuation while it waits (empty while it runs)
  char* frame = nullptr;  // with regions: its locals and where it goes on (a region number)
  TraceBuffer<Access>* trace = nullptr;               // its lane's buffer (lane_traces())
  TraceBuffer<GlobalAccess>* global_trace = nullptr;  // lane_global_traces()
  uint3 tid{0, 0, 0};
  std::uint16_t linear = 0;
  std::uint16_t warp = 0;
  std::uint8_t lane = 0;
  bool barrier_result = false;      // it waits at a barrier: it gets Launch::barrier_result_
  std::uint32_t loop_epoch = 0;     // banksim_loop_epoch while it waits (read at every switch)
  unsigned long long x_result = 0;  // a warp function's result for it
  // Second line: barriers and warp rendezvous (__syncwarp, shuffles, ballots).
  std::uint64_t barrier_pc = 0;
  unsigned x_mask = 0;
  unsigned long long x_value = 0;
  int x_src = 0;
  int x_mode = 0;  // banksim_exchange::Mode
  std::uint64_t x_pc = 0;
};
static_assert(sizeof(Thread) == 128, "a Thread is two cache lines");
static_assert(offsetof(Thread, x_result) < 64, "what a switch touches is in the first line");

// Shadow of one cell of shared memory (24 bytes): a 4-byte word while every access to it covered
// the whole word, its four bytes once a 1- or 2-byte access split it (Launch::split_word).
// Intervals are numbered across the whole launch, so a write from an earlier block is simply an
// interval before the block's first one.
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

class Launch;
// Hidden: read on every traced access, so loaded straight, not through the GOT.
#define BANKSIM_HIDDEN __attribute__((visibility("hidden")))
extern BANKSIM_HIDDEN Launch* g_launch;           // the launch in progress (one at a time)
extern BANKSIM_HIDDEN std::uintptr_t g_arena_lo;  // its shared arena
extern BANKSIM_HIDDEN std::uint64_t g_arena_size;
extern BANKSIM_HIDDEN std::atomic<bool> g_abort_requested;  // set by the watchdog
extern BANKSIM_HIDDEN std::uint64_t g_last_pc;              // of the last traced access
extern EmergencyHandler g_emergency;
}  // namespace banksim::rt::detail
extern "C" char* banksim_current_frame;                // abi.cpp
extern "C" unsigned long long banksim_current_result;  // abi.cpp
extern "C" std::uint32_t banksim_loop_epoch;           // abi.cpp
namespace banksim::rt::detail {
// banksim_loop_epoch under a hidden name: the hooks read it without going through the GOT.
extern BANKSIM_HIDDEN std::uint32_t g_loop_epoch;

class Launch {
 public:
  Launch(const ModuleLayout& layout, const KernelEntry& entry, void** args,
         const RunOptions& options)
      : layout_(layout), entry_(entry), args_(args), options_(options) {}

  RunResult run();

  // Hooks.
  /// An 8- or 16-byte (or typed) access whose address breaks its alignment (abi.cpp's hooks):
  /// shared (offset in the arena) or global (an address). `unsure`: clang knew a smaller
  /// alignment than the access's size, so it may have merged narrower fields that nvcc keeps apart
  /// (a float3's x and y): with nvcc's widths the line's widths decide; without them the problem
  /// is reported and the run says nvcc's widths could change it (RunResult::mergeable).
  void misaligned_access(std::uintptr_t where, std::uint32_t size, Op op, std::uint64_t pc,
                         bool shared, bool unsure);
  /// A shared access was traced in pieces cut by its address (a 12-byte float3 as 8 + 4 bytes,
  /// or 4 + 8): nvcc cuts it the same way in every lane, so without its widths the counts may
  /// differ (RunResult::mergeable).
  void pieces_traced() {
    if (options_.widths == nullptr) result_.mergeable = true;
  }
  /// An aligned access of 1, 2, 4, 8 or 16 bytes at `offset` in the arena (inline below: the
  /// hot path of every kernel).
  void shared_access(std::uint32_t offset, std::uint32_t size, Op op, std::uint64_t pc,
                     std::uint16_t sub);
  /// An access outside the arena (inline below; the slow part in global_access_slow).
  void global_access(std::uintptr_t address, std::uint32_t size, Op op, std::uint64_t pc);
  /// The fixed-width hooks' fast paths (inline below): an aligned access of N whole words none
  /// of which is split, that reports nothing, to a trace with room; a global access to a cached
  /// device buffer, image or the frames. False, having changed nothing, for anything else: the
  /// hook then tail-calls the *_out version (the whole path, out of line). Kept free of calls so
  /// that the hooks need no registers saved.
  template <std::uint32_t N, Op kOp>
  bool try_shared_access(std::uint32_t offset, std::uint64_t pc);
  template <std::uint32_t N, Op kOp>
  bool try_global_access(std::uintptr_t address, std::uint64_t pc);
  __attribute__((noinline)) void shared_access_out(std::uint32_t offset, std::uint32_t size, Op op,
                                                   std::uint64_t pc);
  __attribute__((noinline)) void global_access_out(std::uintptr_t address, std::uint32_t size,
                                                   Op op, std::uint64_t pc);
  void atomic_access(std::uintptr_t address, std::uint32_t size, Op op, std::uint64_t pc);
  /// Appends one access to the thread's trace (stopping a runaway loop).
  void trace(Thread* t, std::uint64_t pc, std::uint32_t offset, std::uint32_t size, Op op,
             std::uint16_t sub) {
    TraceBuffer<Access>& trace = *t->trace;
    if (trace.size() >= kMaxTracePerThread) runaway_trace();
    // Field by field into the buffer: an Access built on the stack and copied as one 16-byte
    // value stalls on store forwarding, the hot path's largest cost.
    Access& a = trace.emplace_back();
    a.pc = tagged_pc(pc, g_loop_epoch);
    a.offset = offset;
    a.size = static_cast<std::uint8_t>(size);
    a.op = static_cast<std::uint8_t>(op);
    a.sub = sub;
    ++result_.traced_shared;
  }
  /// The loop epoch follows the thread that runs (fibers switch lane to lane).
  static void enter_epoch(const Thread& t) { g_loop_epoch = t.loop_epoch; }
  static void leave_epoch(Thread& t) { t.loop_epoch = g_loop_epoch; }
  int syncthreads(std::uint64_t pc, int predicate);
  unsigned long long warp_rendezvous(unsigned mask, unsigned long long value, int src, int mode,
                                     std::uint64_t pc);
  [[noreturn]] void request_abort(const std::string& reason) {
    if (result_.abort_reason.empty()) result_.abort_reason = reason;
    result_.completed = false;
    throw KernelAbort{};
  }
  void check_abort() {
    if (__builtin_expect(g_abort_requested.load(std::memory_order_relaxed), 0)) timed_out();
  }
  [[noreturn]] __attribute__((noinline)) void timed_out() {
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%.1f", options_.timeout_s);
    request_abort(std::string("timeout: the kernel did not finish within ") + seconds +
                  " s (an infinite loop, or a barrier some threads never reach?)");
  }
  Thread* current() const { return current_; }
  bool regions() const { return regions_; }
  /// A plain __syncthreads() of a kernel cut into regions: the thread returns after it.
  void region_barrier(std::uint64_t pc) {
    Thread* t = current_;
    if (t == nullptr) return;
    if (pending_.active) resolve_pending();
    check_abort();
    state_[t->linear] = State::kAtBarrier;
    t->barrier_pc = pc;
    t->barrier_result = true;
    t->x_value = 0;
    arrived_at_barrier(pc);
  }
  /// Notes whether the block's threads wait at more than one __syncthreads() (run_block reports
  /// it; it looks at each thread's barrier_pc only then).
  void arrived_at_barrier(std::uint64_t pc) {
    if (barrier_first_pc_ == 0) {
      barrier_first_pc_ = pc;
    } else if (pc != barrier_first_pc_) {
      barrier_sites_differ_ = true;
    }
  }
  /// The shared variable at an arena offset (-1: none, a red zone or past the used part).
  int shared_var_at(std::uint32_t offset) const { return var_at(offset); }
  /// A kernel freed a device buffer: forget the cached buffer regions.
  void forget_buffers() { buf_regions_.fill(Region{0, 0}); }
  uint3 current_block() const { return block_idx_; }

 private:
  void run_block(uint3 block);
  /// Each thread's fiber, made at the launch's first block and kept for the next ones: it runs
  /// the kernel once per block and waits, kDone, in between.
  void make_fibers();
  /// Ends every fiber (after the last block, or an abort).
  void end_fibers();
  /// Fields of each thread that do not change between blocks.
  void init_threads();
  /// A kernel cut into regions (banksim/pass/regions.cpp): a frame for each thread.
  void make_frames(std::uint64_t frame_bytes);
  void run_warp(unsigned warp);
  /// With regions: each runnable lane runs to its next barrier or its end in one call.
  void run_warp_regions(unsigned warp);
  void resume(Thread& t);
  void arrived(ctx::fiber&& from);
  void suspend(Thread& t);
  /// Releases the lanes of `warp` waiting at warp functions; returns how many wait on (held).
  unsigned release_warp_sync(unsigned warp);
  void flush_warp(unsigned warp);
  void add_request(const Access* const* lane_access, const bankmodel::Request& request);
  /// With options_.widths: cuts each lane's accesses that clang moved in pieces (a float3 as 8 + 4
  /// bytes, or 4 + 8 at odd elements; a uchar3 as 2 + 1 or 1 + 2) or wider than every width
  /// nvcc uses on their line into pieces of the widest width nvcc uses there that divides the
  /// access and its address, numbered in order: every lane then makes the requests nvcc's code
  /// makes.
  void repiece(unsigned first, unsigned last);
  /// Regroups a warp's requests (in program order) into the widths of options_.widths
  /// (regroup.cpp).
  void regroup(std::vector<WarpRequest>* requests);
  /// Sets result_.mergeable when the warp's traces hold two accesses nvcc could merge
  /// (regroup.cpp).
  void look_for_merges(unsigned first, unsigned last);
  /// Cuts the warp's global accesses into nvcc's widths where clang moved them wider or in
  /// sizes nvcc does not use (regroup.cpp).
  void repiece_global(unsigned first, unsigned last);
  /// Groups the warp's global accesses into requests and counts their sectors.
  void flush_global(unsigned first, unsigned last);
  /// `run`: every lane is active and lane i accesses lanes[0]'s address + i * size (known by the
  /// caller); false: not known, looked for.
  void add_global_request(const GlobalAccess* const* lanes, SectorSet* loaded_sectors, bool run);
  [[noreturn]] void runaway_trace();
  void shared_out_of_bounds(std::uint32_t offset, std::uint32_t size, std::uint64_t pc, int var);
  void global_access_slow(std::uintptr_t address, std::uint32_t size, Op op, std::uint64_t pc);
  void trace_global(std::uintptr_t address, std::uint32_t size, Op op, std::uint64_t pc) {
    TraceBuffer<GlobalAccess>& trace = *current_->global_trace;
    if (trace.size() < kMaxGlobalTracePerThread) {
      GlobalAccess& a = trace.emplace_back();
      a.pc = pc;
      a.address = address;
      a.size = static_cast<std::uint8_t>(size);
      a.op = static_cast<std::uint8_t>(op);
    } else {
      result_.global_sectors_partial = true;  // counted up to the cap, the rest not
    }
  }
  /// Calls f(shadow cell, offset of the cell) for each cell the bytes [offset, offset + size)
  /// cover: whole words, or the bytes of a split word (splitting words a sub-word access touches).
  template <typename F>
  void for_each_cell(std::uint32_t offset, std::uint32_t size, F f);
  void split_word(std::uint32_t word);
  /// Who is accessing, for the per-cell checks of one access (shared_access, shared_cells).
  struct Accessor {
    std::uint16_t me;
    std::uint16_t epoch;
    std::uint32_t my_pc;
    std::uint32_t interval;
    std::uint64_t pc;
    int var;
  };
  Accessor accessor(const Thread* t, std::uint64_t pc, int var) const {
    return Accessor{t->linear, warp_epoch_[t->warp], pc32(pc), interval_, pc, var};
  }
  /// One cell of a load: reports the first problem of the access (`reported`), records the read.
  void load_cell(Shadow& c, std::uint32_t at, const Accessor& a, bool* reported) {
    if (!*reported && (c.w_interval < block_first_interval_ ||
                       (c.w_interval == a.interval && c.w_thread != a.me))) {
      *reported = load_problem(c, at, a.pc, a.var);
    }
    if (c.r_interval != a.interval) {
      c.r_interval = a.interval;
      c.r_thread = a.me;
      c.r_wepoch = a.epoch;
      c.r_pc = a.my_pc;
    } else if (c.r_thread != a.me) {
      c.r_thread = kManyThreads;
    }
  }
  /// One cell of a store of `size` bytes at `offset`.
  void store_cell(Shadow& c, std::uint32_t offset, std::uint32_t size, const Accessor& a,
                  bool* reported) {
    if (!*reported && ((c.r_interval == a.interval && c.r_thread != a.me) ||
                       (c.w_interval == a.interval && c.w_thread != a.me))) {
      *reported = store_problem(c, offset, size, a.pc, a.var);
    }
    c.w_interval = a.interval;
    c.w_thread = a.me;
    c.w_wepoch = a.epoch;
    c.w_pc = a.my_pc;
  }
  /// shared_access for an access that touches split words or is narrower than a word.
  void shared_cells(std::uint32_t offset, std::uint32_t size, Op op, std::uint64_t pc, int var);
  /// A load found a cell no thread of the block wrote, or another thread wrote in this interval.
  bool load_problem(const Shadow& s, std::uint32_t at, std::uint64_t pc, int var);
  /// A store found a cell another thread read or wrote in this interval.
  bool store_problem(const Shadow& s, std::uint32_t offset, std::uint32_t size, std::uint64_t pc,
                     int var);
  Shadow& cell(std::uint32_t offset) {
    const std::uint32_t w = offset >> 2;
    return split_[w] != 0 ? byte_shadow_[offset] : shadow_[w];
  }
  /// The waiting lanes of a warp that must keep waiting this round (release_warp_sync).
  unsigned lanes_to_hold(unsigned first, unsigned last) const;
  /// A __reduce_*_sync or __match_*_sync's result for lane t (release_warp_sync).
  unsigned long long collective(const Thread& t, unsigned first, unsigned last) const;
  void resolve_pending();
  /// The WidthPlan's rule for one program counter, as asked before the threads ran (run(): the
  /// module's call sites) or by regroup(); a blank rule for a pc not asked about yet. It never
  /// asks the plan itself: it runs on a thread's fiber stack.
  const WidthRule& rule_for(std::uint64_t pc);
  bool separated_by_syncwarp(std::uint16_t other, std::uint16_t other_epoch) const;
  void uninitialized(std::uint32_t offset, std::uint64_t pc, int var);
  /// Reports the pending uninitialised reads of the interval that ends now.
  void resolve_uninitialized();
  /// An access of `size` bytes at a shared offset that is not a multiple of its alignment: the
  /// GPU stops the kernel with "misaligned address".
  void misaligned(std::uint32_t offset, std::uint32_t size, std::uint64_t pc, int var);
  /// Records what the two threads of a race did and in which order (Module's wording).
  static void sequence(RawProblem& p, rt::Access mine, rt::Access other, bool other_first,
                       std::string target);
  void read_after_write(const Shadow& s, std::uint64_t pc, int var);
  void write_after_read(const Shadow& s, std::uint64_t pc, int var);
  void write_after_write(const Shadow& s, std::uint32_t offset, std::uint32_t size,
                         std::uint64_t pc);
  /// Records a problem; the new record (to add what Module words its message from), or nullptr
  /// when the same kind at the same pcs was recorded before (only counted then).
  RawProblem* report(const std::string& kind, bool warning, std::uint64_t pc,
                     std::uint64_t other_pc, const Thread* t, std::uint16_t other_thread, int var,
                     const std::string& message);
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
  // Each thread's state, by linear index: apart from the records, so that the passes over a
  // block's threads (run_block, run_warp_regions) read 1 KiB, not a cache line a thread.
  std::vector<State> state_;
  // The lanes' trace buffers (every warp's lane i traces into element i): the flushes read them
  // here rather than through 32 thread records.
  std::array<TraceBuffer<Access>, bankmodel::kWarpSize>& traces_ = lane_traces();
  std::array<TraceBuffer<GlobalAccess>, bankmodel::kWarpSize>& global_traces_ =
      lane_global_traces();
  unsigned num_threads_ = 0;
  unsigned num_warps_ = 0;
  Thread* current_ = nullptr;
  // Threads hand over to each other directly: a lane that stops (barrier, warp function, end)
  // resumes the next runnable lane of its warp, and only the warp's last goes back to the
  // scheduler (one switch per lane and stop instead of two; see suspend()). main_ holds the
  // scheduler's continuation while threads run; from_ says whose continuation a switch leaves.
  ctx::fiber main_;
  Thread* from_ = nullptr;  // the thread that switched last (nullptr: the scheduler)
  unsigned warp_last_ = 0;  // one past the last thread of the warp being run
  bool fibers_made_ = false;
  bool regions_ = false;  // the kernel was cut into regions: no fibers
  // A thread may stop inside a loop that keeps an epoch (regions.cpp's table; a kernel run
  // with fibers: always). When not, each thread's call returns with the epoch at 0, as it
  // found it, and none saves or restores it.
  bool loop_epochs_ = true;
  unsigned long long barrier_count_ = 0;   // __syncthreads_count's sum over the arrived threads
  unsigned long long barrier_result_ = 0;  // the sum at the barrier released last
  std::uint64_t barrier_first_pc_ = 0;     // where the first thread at the barrier waits (0: none)
  bool barrier_sites_differ_ = false;      // another thread waits at another __syncthreads()
  unsigned warp_waiting_ = 0;  // with regions: lanes of the running warp at a warp function
  std::unique_ptr<char, void (*)(void*)> frames_{nullptr, std::free};
  bool stopping_ = false;  // the fibers return instead of waiting for another block
  uint3 block_idx_{0, 0, 0};
  std::uint32_t block_serial_ = 0;
  std::uint32_t interval_ = 0;
  std::uint32_t block_first_interval_ = 0;  // writes before it are from other blocks
  std::uint64_t pc_base_ = 0;               // shadow pcs are stored relative to this
  std::vector<std::uint16_t> warp_epoch_;
  // Per warp, the lanes each warp rendezvous of this block released together (index: the warp
  // epoch it ended): two lanes are ordered by a __syncwarp only if both took part in one.
  std::vector<std::vector<std::uint32_t>> warp_syncs_;
  static constexpr std::size_t kMaxWarpSyncs = std::size_t{1} << 16;  // then any one orders

  std::vector<std::int16_t> owner_;  // var index per arena byte, -1 = red zone / padding
  std::vector<Shadow> shadow_;       // per 4-byte word of the used arena
  std::vector<std::uint8_t> split_;  // per word: 1 when its bytes have shadows of their own
  std::vector<Shadow> byte_shadow_;  // per byte, allocated when the first word splits
  PendingWrite pending_;
  /// Reads of bytes this block had not written yet, judged at the end of their barrier interval:
  /// written later in the same interval by another thread (a missing barrier), or never (a
  /// guard or index that skips the write). At most kMaxPendingUninit per interval.
  struct PendingUninit {
    std::uint32_t offset;
    std::uint64_t pc;
    std::uint16_t thread;
    int var;
  };
  static constexpr std::size_t kMaxPendingUninit = 64;
  std::vector<PendingUninit> pending_uninit_;

  std::map<std::tuple<std::uint64_t, std::uint16_t, std::uint8_t, std::uint8_t>, std::size_t>
      site_index_;  // (pc, sub, op, width) -> sites
  std::vector<SiteStats> sites_;
  struct SiteSlot {
    std::uint64_t pc = 0;
    std::size_t index = SIZE_MAX;
    std::uint16_t sub = 0;
    Op op = Op::kLoad;
    int width = 0;
  };
  std::array<SiteSlot, 64> site_cache_{};  // in front of site_index_
  std::map<std::tuple<std::uint64_t, std::uint8_t, std::uint8_t>, std::size_t>
      global_index_;  // (pc, op, width) -> global_sites_
  std::vector<GlobalSiteStats> global_sites_;
  struct GlobalSlot {
    std::uint64_t pc = 0;
    std::size_t index = SIZE_MAX;
    std::uint8_t op = 0;
    std::uint8_t size = 0;
  };
  std::array<GlobalSlot, 32> global_cache_{};  // in front of global_index_
  SectorSet loaded_;  // flush_global's: sectors the warp being flushed loaded
  std::unordered_map<std::uint64_t, WidthRule> rules_;  // options_.widths' rules, by pc
  std::uint64_t regrouped_ = 0;
  std::map<std::string, std::size_t> problem_index_;
  std::vector<Region> known_;  // loaded images and fiber stacks
  // The last regions accesses fell in: images and stacks (checked, not counted), device buffers
  // (traced for sectors). A kernel alternates between a few (its input, its output, threadIdx).
  static constexpr unsigned kRegionCache = 4;
  std::array<Region, kRegionCache> ok_regions_{};
  std::array<Region, kRegionCache> buf_regions_{};
  unsigned next_ok_ = 0;
  unsigned next_buf_ = 0;
  Region stacks_{0, 0};  // the fiber stacks (locals)
};

// guards.cpp
/// Installs the crash-signal and exit() handlers once per process.
void install_process_guards();
/// Prints the message (with the running thread), calls the emergency handler, exits with `code`.
[[noreturn]] void emergency_exit(const char* kind, const std::string& message, int code);
/// Sets g_abort_requested after `seconds`; stops the process 2 s later if nothing reacts.
class Watchdog {
 public:
  explicit Watchdog(double seconds);
  ~Watchdog();
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  bool done_ = false;
  std::thread thread_;
};

}  // namespace banksim::rt::detail

// The hot path's inline definitions (Launch::shared_access and its kin).
#include "engine_inline.hpp"  // IWYU pragma: export
