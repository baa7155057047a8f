// scheduler.cpp - running a launch: blocks one after another, every CUDA thread a Boost.Context
// fiber, warps run to their barrier one after another; warp traces zipped into warp requests
// (the k-th execution of an instruction by each lane forms one request); __syncthreads and the
// warp rendezvous of __syncwarp, shuffles and ballots. See engine.hpp for the parts.
// Over 600 lines: blocks, warp requests and barriers all drive one Launch's threads in turn.
#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <pthread.h>

#include "engine.hpp"

namespace banksim::rt::detail {

namespace ctx = boost::context;
using bankmodel::Op;

// ---- Running --------------------------------------------------------------------------------

RunResult Launch::run() {
  const auto start = std::chrono::steady_clock::now();
  if (options_.widths != nullptr) {
    // The rules of every known call site, now: a hook that meets a misaligned access asks for its
    // pc's rule on the thread's small fiber stack, where the plan (a symbolizer) must not run.
    const std::vector<std::uint64_t> pcs = options_.widths->call_sites();
    if (!pcs.empty()) {
      const std::vector<WidthRule> got = options_.widths->rules(pcs);
      for (std::size_t k = 0; k < pcs.size() && k < got.size(); ++k) rules_[pcs[k]] = got[k];
    }
  }
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
  const std::uint32_t words = (used + 3) / 4;
  shadow_.assign(words, Shadow{});
  split_.assign(words, 0);
  byte_shadow_.clear();
  stacks_ = stack_pool().region();
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
  state_.assign(num_threads_, State::kRunnable);
  init_threads();
  for (const RegionKernel& k : layout_.region_kernels) {
    if (k.function == entry_.function) make_frames(k.frame_bytes);
  }
  warp_epoch_.assign(num_warps_, 0);
  warp_syncs_.assign(num_warps_, {});
  // Code of the module lies within 2 GiB of its data: pcs fit in 32 bits relative to this.
  pc_base_ = layout_.arena_lo - (std::uint64_t{1} << 31);
  gridDim = options_.grid;
  blockDim = options_.block;
  try {
    for (unsigned z = 0; z < options_.grid.z && result_.completed; ++z) {
      for (unsigned y = 0; y < options_.grid.y && result_.completed; ++y) {
        for (unsigned x = 0; x < options_.grid.x && result_.completed; ++x) {
          run_block(uint3{x, y, z});
        }
      }
    }
  } catch (...) {
    end_fibers();
    throw;
  }
  end_fibers();
  result_.sites = std::move(sites_);
  result_.regrouped = regrouped_;
  result_.global_sites = std::move(global_sites_);
  result_.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return std::move(result_);
}

void Launch::resume(Thread& t) {
  current_ = &t;
  threadIdx = t.tid;
  enter_epoch(t);
  from_ = nullptr;
  arrived(std::move(t.fiber).resume());  // back when the chain of lanes ends (suspend())
  current_ = nullptr;
}

void Launch::arrived(ctx::fiber&& from) {
  // Whoever switched here left its continuation: a thread's goes back to that thread, the
  // scheduler's is kept until a thread hands back to it.
  if (from_ != nullptr) {
    from_->fiber = std::move(from);
  } else {
    main_ = std::move(from);
  }
}

void Launch::suspend(Thread& t) {
  // The next runnable lane of the warp runs now, in the order run_warp() would have resumed it;
  // after the last (or an abort) the scheduler does.
  Thread* next = nullptr;
  if (result_.completed) {
    for (unsigned i = t.linear + 1U; i < warp_last_; ++i) {
      if (state_[i] == State::kRunnable) {
        next = &threads_[i];
        break;
      }
    }
  }
  from_ = &t;
  leave_epoch(t);
  if (next != nullptr) {
    current_ = next;
    threadIdx = next->tid;
    enter_epoch(*next);
    arrived(std::move(next->fiber).resume());
  } else {
    arrived(std::move(main_).resume());
  }
  // Resumed: whoever did set current_ and threadIdx to this thread.
}

void Launch::init_threads() {
  for (unsigned i = 0; i < num_threads_; ++i) {
    Thread& t = threads_[i];
    t.linear = static_cast<std::uint16_t>(i);
    t.tid = tid_of(t.linear);
    t.warp = static_cast<std::uint16_t>(i / bankmodel::kWarpSize);
    t.lane = static_cast<std::uint8_t>(i % bankmodel::kWarpSize);
    t.trace = &lane_traces()[t.lane];
    t.global_trace = &lane_global_traces()[t.lane];
  }
}

void Launch::make_frames(std::uint64_t frame_bytes) {
  // Frames 64-byte aligned (the pass gives no local more), one after another: the hot ones of
  // a warp share cache lines and pages, unlike fiber stacks.
  const std::uint64_t stride = (std::max<std::uint64_t>(frame_bytes, 16) + 63) / 64 * 64;
  const std::uint64_t bytes = stride * num_threads_;
  frames_.reset(static_cast<char*>(std::aligned_alloc(64, bytes)));
  if (!frames_) throw std::runtime_error("banksim: cannot allocate the threads' frames");
  std::memset(frames_.get(), 0, bytes);
  for (unsigned i = 0; i < num_threads_; ++i) threads_[i].frame = frames_.get() + i * stride;
  regions_ = true;
  result_.regions = true;
  // Locals live in the frames; the callees of a kernel keep theirs on this thread's stack.
  stacks_ = Region{reinterpret_cast<std::uintptr_t>(frames_.get()),
                   reinterpret_cast<std::uintptr_t>(frames_.get()) + bytes};
  pthread_attr_t attr;
  if (pthread_getattr_np(pthread_self(), &attr) == 0) {
    void* lo = nullptr;
    std::size_t size = 0;
    if (pthread_attr_getstack(&attr, &lo, &size) == 0) {
      known_.push_back(Region{reinterpret_cast<std::uintptr_t>(lo),
                              reinterpret_cast<std::uintptr_t>(lo) + size});
    }
    pthread_attr_destroy(&attr);
  }
}

void Launch::make_fibers() {
  PoolAllocator alloc{&stack_pool()};
  for (unsigned i = 0; i < num_threads_; ++i) {
    Thread& t = threads_[i];
    t.fiber = ctx::fiber(std::allocator_arg, alloc, [this, &t](ctx::fiber&& caller) {
      arrived(std::move(caller));
      while (!stopping_) {
        try {
          entry_.invoke(entry_.function, args_);
        } catch (const KernelAbort&) {
          // the launch stops; the reason is already recorded
        }
        resolve_pending();
        state_[t.linear] = State::kDone;
        suspend(t);  // the next block, or the end
      }
      from_ = &t;  // its fiber ends: the scheduler's resume() gets an empty one for it
      return std::move(main_);
    });
  }
  fibers_made_ = true;
}

void Launch::end_fibers() {
  if (!fibers_made_) return;
  stopping_ = true;
  for (unsigned i = 0; i < num_threads_; ++i) {
    Thread& t = threads_[i];
    if (!t.fiber) continue;
    if (state_[t.linear] == State::kDone) {
      resume(t);  // returns from its loop
    }
    // One suspended mid-kernel (after an abort): destroying it unwinds its stack.
    t.fiber = ctx::fiber{};
  }
  fibers_made_ = false;
}

void Launch::run_block(uint3 block) {
  block_idx_ = block;
  blockIdx = block;
  ++block_serial_;
  ++interval_;
  block_first_interval_ = interval_;
  std::fill(warp_epoch_.begin(), warp_epoch_.end(), 0);
  for (auto& syncs : warp_syncs_) syncs.clear();
  barrier_count_ = 0;
  barrier_result_ = 0;
  barrier_first_pc_ = 0;
  barrier_sites_differ_ = false;
  if (!regions_ && !fibers_made_) make_fibers();
  for (auto& trace : lane_traces()) trace.clear();  // a buffer per lane, shared by the warps
  for (auto& trace : lane_global_traces()) trace.clear();
  for (auto& runs : lane_epoch_runs()) runs.clear();
  for (unsigned i = 0; i < num_threads_; ++i) {
    threads_[i].loop_epoch = 0;
    threads_[i].epoch_noted = kEpochUnnoted;
  }
  // A cut kernel's threads store region 0 in their frame as they return (regions.cpp).
  std::fill(state_.begin(), state_.end(), State::kRunnable);
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
    // One pass over the states: count, and release the threads at the barrier (a thread record
    // is read only when the threads wait at different barriers). __syncthreads_count's sum was
    // added up as they arrived; what a thread's barrier returns is barrier_result_.
    for (unsigned i = 0; i < num_threads_; ++i) {
      State& state = state_[i];
      if (state == State::kDone) {
        ++done;
        if (first_done == nullptr) first_done = &threads_[i];
      } else {
        ++waiting;
        state = State::kRunnable;
        if (first_waiting == nullptr) {
          first_waiting = &threads_[i];
        } else if (barrier_sites_differ_ && other_site == nullptr &&
                   threads_[i].barrier_pc != first_waiting->barrier_pc) {
          other_site = &threads_[i];
        }
      }
    }
    barrier_result_ = barrier_count_;
    if (waiting == 0) break;
    if (done > 0) {
      // Whether the others returned early or skipped a barrier inside a branch is not known
      // here: Module words the advice from the source (an early `return`, or the `if`).
      RawProblem* p = report(
          "barrier_divergence", false, first_waiting->barrier_pc, 0, first_waiting,
          first_done->linear, -1,
          "__syncthreads() reached by " + std::to_string(waiting) + " of " +
              std::to_string(num_threads_) + " threads of the block; the others (e.g. thread (" +
              std::to_string(first_done->tid.x) + "," + std::to_string(first_done->tid.y) + "," +
              std::to_string(first_done->tid.z) +
              ")) finished the kernel without reaching it. Every thread must reach every "
              "barrier: keep it out of any `if`, loop or early `return` that not every thread "
              "takes, and guard only the work");
      if (p != nullptr) {
        p->others_finished = true;
        p->reached = waiting;
        p->block_threads = num_threads_;
      }
    }
    if (other_site != nullptr) {
      RawProblem* p =
          report("barrier_divergence", false, first_waiting->barrier_pc, other_site->barrier_pc,
                 first_waiting, other_site->linear, -1,
                 "threads of one block wait at different __syncthreads() calls: a barrier "
                 "inside divergent code (if/else) is undefined behaviour on the GPU");
      if (p != nullptr) p->two_barriers = true;
    }
    barrier_count_ = 0;
    barrier_first_pc_ = 0;
    barrier_sites_differ_ = false;
    resolve_uninitialized();
    ++interval_;
  }
  resolve_uninitialized();
  for (auto& trace : lane_traces()) trace.clear();
  for (auto& runs : lane_epoch_runs()) runs.clear();
  pending_.active = false;
}

void Launch::run_warp_regions(unsigned warp) {
  const unsigned first = warp * bankmodel::kWarpSize;
  const unsigned last = std::min(first + bankmodel::kWarpSize, num_threads_);
  warp_last_ = last;
  warp_waiting_ = 0;
  for (;;) {
    // Each runnable lane runs to its next stop: a barrier, a warp function or its end.
    State* const state = state_.data();  // not resized while threads run
    for (unsigned i = first; i < last && result_.completed; ++i) {
      if (state[i] != State::kRunnable) continue;
      Thread& t = threads_[i];
      current_ = &t;
      threadIdx = t.tid;
      banksim_current_frame = t.frame;
      enter_epoch(t);
      // What the warp function or barrier it returned at hands it.
      banksim_current_result = t.barrier_result ? barrier_result_ : t.x_result;
      try {
        entry_.invoke(entry_.function, args_);
      } catch (const KernelAbort&) {
        // the launch stops; the reason is already recorded
      }
      if (state[i] == State::kRunnable) {  // it returned from the kernel, not at a stop
        if (pending_.active) resolve_pending();
        state[i] = State::kDone;
      }
      leave_epoch(t);
      current_ = nullptr;
    }
    if (!result_.completed || warp_waiting_ == 0) return;
    warp_waiting_ = release_warp_sync(warp);
  }
}

void Launch::run_warp(unsigned warp) {
  if (regions_) return run_warp_regions(warp);
  const unsigned first = warp * bankmodel::kWarpSize;
  const unsigned last = std::min(first + bankmodel::kWarpSize, num_threads_);
  warp_last_ = last;
  for (;;) {
    // Resuming the first runnable lane runs them all: each hands over to the next (suspend()).
    for (unsigned i = first; i < last && result_.completed; ++i) {
      if (state_[i] == State::kRunnable) resume(threads_[i]);
    }
    if (!result_.completed) return;
    bool any_sync = false;
    for (unsigned i = first; i < last; ++i) any_sync |= state_[i] == State::kAtWarpSync;
    if (!any_sync) return;
    release_warp_sync(warp);
  }
}

unsigned Launch::lanes_to_hold(unsigned first, unsigned last) const {
  // A shuffle, vote, reduction or match whose mask's lanes all wait at the same call site (or
  // have returned, or sit at a __syncthreads) is complete. When some are complete and others
  // wait for lanes still on their way (they stopped at another warp function first: even lanes
  // at a reduction in a branch, odd lanes already at the match after it), only the complete
  // ones go now; the others, and any __syncwarp or __activemask, wait for the next round.
  auto grouped = [](int mode) {
    return mode == banksim_exchange::kShuffle || mode == banksim_exchange::kBallot ||
           (mode >= banksim_exchange::kReduceAdd && mode <= banksim_exchange::kMatchAll);
  };
  // The usual case in one pass: every lane still running waits, all at one call site.
  {
    unsigned waiting = 0;
    unsigned running = 0;  // neither returned nor at a __syncthreads
    bool one_site = true;
    const Thread* site = nullptr;
    for (unsigned i = first; i < last; ++i) {
      const Thread& t = threads_[i];
      if (state_[i] == State::kDone || state_[i] == State::kAtBarrier) continue;
      running |= 1u << t.lane;
      if (state_[i] != State::kAtWarpSync) continue;
      waiting |= 1u << t.lane;
      if (site == nullptr) site = &t;
      one_site = one_site && t.x_pc == site->x_pc && t.x_mode == site->x_mode;
    }
    if (one_site && running == waiting) return 0;  // every mask's lanes are here (or gone)
  }
  unsigned waiting = 0;
  unsigned complete = 0;
  for (unsigned i = first; i < last; ++i) {
    const Thread& t = threads_[i];
    if (state_[i] != State::kAtWarpSync) continue;
    waiting |= 1u << t.lane;
    if (!grouped(t.x_mode)) continue;
    bool all_here = true;
    for (unsigned j = first; j < last && all_here; ++j) {
      const Thread& u = threads_[j];
      if (((t.x_mask >> u.lane) & 1u) == 0 || state_[j] == State::kDone ||
          state_[j] == State::kAtBarrier) {
        continue;
      }
      all_here = state_[j] == State::kAtWarpSync && u.x_pc == t.x_pc && u.x_mode == t.x_mode;
    }
    if (all_here) complete |= 1u << t.lane;
  }
  if (complete == 0 || complete == waiting) return 0;  // all go, as they always did
  return waiting & ~complete;
}

unsigned Launch::release_warp_sync(unsigned warp) {
  const unsigned first = warp * bankmodel::kWarpSize;
  const unsigned last = std::min(first + bankmodel::kWarpSize, num_threads_);
  // Lanes that wait for others still on their way keep waiting; the rest are released below as
  // if the held lanes were not waiting yet.
  const unsigned held = lanes_to_hold(first, last);
  std::array<bool, bankmodel::kWarpSize> was_held{};
  for (unsigned i = first; i < last; ++i) {
    Thread& t = threads_[i];
    if (state_[i] == State::kAtWarpSync && ((held >> t.lane) & 1u) != 0) {
      state_[i] = State::kRunnable;  // parked for this round: not a waiting lane below
      was_held[t.lane] = true;
    }
  }
  // Lanes in the waiting lanes' masks that are neither waiting nor done never will be: they sit
  // at a __syncthreads. Report, then release anyway so the run can go on.
  unsigned waiting_mask = 0;
  unsigned wanted_mask = 0;
  const Thread* sample = nullptr;
  for (unsigned i = first; i < last; ++i) {
    const Thread& t = threads_[i];
    if (state_[i] == State::kAtWarpSync) {
      waiting_mask |= 1u << t.lane;
      if (t.x_mode == banksim_exchange::kActiveMask) continue;  // no mask: it asks for one
      wanted_mask |= t.x_mask;
      if (sample == nullptr) sample = &t;
    }
  }
  for (unsigned i = first; i < last; ++i) {
    const Thread& t = threads_[i];
    if (((wanted_mask >> t.lane) & 1u) != 0 && state_[i] == State::kAtBarrier) {
      report("barrier_divergence", false, sample->x_pc, t.barrier_pc, sample, t.linear, -1,
             "a warp-level operation (__syncwarp or a __shfl/__ballot) names lanes of its mask "
             "that are waiting at __syncthreads() instead: all lanes in the mask must execute it");
      break;
    }
  }
  // A lane that calls with a mask that leaves itself out: undefined on the GPU.
  for (unsigned i = first; i < last; ++i) {
    const Thread& t = threads_[i];
    if (state_[i] == State::kAtWarpSync && t.x_mode != banksim_exchange::kActiveMask &&
        ((t.x_mask >> t.lane) & 1u) == 0) {
      report("warp_mask", false, t.x_pc, 0, &t, kNoThread, -1,
             "lane " + std::to_string(t.lane) +
                 " calls a warp-level function (__shfl*_sync, __ballot_sync, __syncwarp...) with "
                 "a mask that leaves out its own lane: undefined on the GPU; every calling lane "
                 "must be in the mask");
      break;
    }
  }
  ++warp_epoch_[warp];
  if (warp_syncs_[warp].size() < kMaxWarpSyncs) warp_syncs_[warp].push_back(waiting_mask);
  // One SHFL instruction per call site whose lanes meet in this round (the cost model prices it).
  {
    std::uint64_t sites[bankmodel::kWarpSize];
    std::size_t n = 0;
    for (unsigned i = first; i < last; ++i) {
      const Thread& t = threads_[i];
      if (state_[i] != State::kAtWarpSync || t.x_mode != banksim_exchange::kShuffle) continue;
      if (std::find(sites, sites + n, t.x_pc) == sites + n) sites[n++] = t.x_pc;
    }
    result_.warp_shuffles += n;
  }
  unsigned ballot = 0;
  for (unsigned i = first; i < last; ++i) {
    const Thread& t = threads_[i];
    if (state_[i] == State::kAtWarpSync && t.x_mode == banksim_exchange::kBallot && t.x_value != 0)
      ballot |= 1u << t.lane;
  }
  // __activemask: the lanes waiting at the same call site, those that would execute it together
  // (found before any lane is released).
  unsigned together[bankmodel::kWarpSize] = {};
  for (unsigned i = first; i < last; ++i) {
    const Thread& t = threads_[i];
    if (state_[i] != State::kAtWarpSync || t.x_mode != banksim_exchange::kActiveMask) continue;
    for (unsigned j = first; j < last; ++j) {
      const Thread& u = threads_[j];
      if (state_[j] == State::kAtWarpSync && u.x_mode == banksim_exchange::kActiveMask &&
          u.x_pc == t.x_pc) {
        together[i - first] |= 1u << u.lane;
      }
    }
  }
  for (unsigned i = first; i < last; ++i) {
    Thread& t = threads_[i];
    if (state_[i] != State::kAtWarpSync) continue;
    if (t.x_mode == banksim_exchange::kShuffle) {
      const unsigned src = first + static_cast<unsigned>(t.x_src);
      const bool ok = t.x_src >= 0 && src < last && ((waiting_mask >> t.x_src) & 1u) != 0;
      if (!ok) {
        // Reading a lane that has returned, that the block lacks, or that is not taking part:
        // the GPU gives an undefined value.
        const bool absent = t.x_src < 0 || src >= last;
        const bool outside = !absent && ((t.x_mask >> t.x_src) & 1u) == 0;
        char mask_text[16];
        std::snprintf(mask_text, sizeof mask_text, "0x%08x", t.x_mask);
        report(
            "warp_mask", false, t.x_pc, 0, &t, absent ? kNoThread : threads_[src].linear, -1,
            "lane " + std::to_string(t.lane) + " reads lane " + std::to_string(t.x_src) +
                " in a shuffle, but lane " + std::to_string(t.x_src) +
                (absent                        ? " does not exist in this block (a partial warp)"
                 : state_[src] == State::kDone ? " has already returned"
                                               : " is not taking part in this shuffle") +
                (outside ? std::string(", and it is not in the shuffle's mask (") + mask_text + ")"
                         : std::string()) +
                ": the value is undefined on the GPU; read only lanes that execute the "
                "same shuffle (keep them alive past it, or guard the read)");
      }
      t.x_result = ok ? threads_[src].x_value : t.x_value;
    } else if (t.x_mode == banksim_exchange::kActiveMask) {
      t.x_result = together[i - first];
    } else if (t.x_mode == banksim_exchange::kBallot || t.x_mode == banksim_exchange::kSyncOnly) {
      t.x_result = ballot & t.x_mask;  // the lanes of its mask whose predicate holds
    } else {
      t.x_result = collective(t, first, last);
    }
  }
  // Released only now: a reduction or match reads the values of the lanes still waiting.
  unsigned still = 0;
  for (unsigned i = first; i < last; ++i) {
    Thread& t = threads_[i];
    if (state_[i] == State::kAtWarpSync) state_[i] = State::kRunnable;
    if (was_held[t.lane]) {
      state_[i] = State::kAtWarpSync;
      ++still;
    }
  }
  return still;
}

unsigned long long Launch::collective(const Thread& t, unsigned first, unsigned last) const {
  // The values of the lanes of t's mask that wait with the same operation (the mask's other lanes
  // were reported above, or have returned: the GPU leaves their share undefined).
  std::vector<unsigned long long> values;
  unsigned lanes = 0;
  unsigned equal = 0;
  for (unsigned j = first; j < last; ++j) {
    const Thread& u = threads_[j];
    if (state_[j] != State::kAtWarpSync || u.x_mode != t.x_mode || ((t.x_mask >> u.lane) & 1u) == 0)
      continue;
    values.push_back(u.x_value);
    lanes |= 1u << u.lane;
    if (u.x_value == t.x_value) equal |= 1u << u.lane;
  }
  const auto u32 = [](unsigned long long v) { return static_cast<std::uint32_t>(v); };
  const auto s32 = [](unsigned long long v) {
    return static_cast<std::int32_t>(static_cast<std::uint32_t>(v));
  };
  std::uint32_t r = 0;
  switch (t.x_mode) {
    case banksim_exchange::kReduceAdd:
      for (auto v : values) r += u32(v);
      return r;
    case banksim_exchange::kReduceMinU:
      r = 0xffffffffu;
      for (auto v : values) r = std::min(r, u32(v));
      return r;
    case banksim_exchange::kReduceMaxU:
      for (auto v : values) r = std::max(r, u32(v));
      return r;
    case banksim_exchange::kReduceMinS: {
      std::int32_t m = INT32_MAX;
      for (auto v : values) m = std::min(m, s32(v));
      return static_cast<std::uint32_t>(m);
    }
    case banksim_exchange::kReduceMaxS: {
      std::int32_t m = INT32_MIN;
      for (auto v : values) m = std::max(m, s32(v));
      return static_cast<std::uint32_t>(m);
    }
    case banksim_exchange::kReduceAnd:
      r = 0xffffffffu;
      for (auto v : values) r &= u32(v);
      return r;
    case banksim_exchange::kReduceOr:
      for (auto v : values) r |= u32(v);
      return r;
    case banksim_exchange::kReduceXor:
      for (auto v : values) r ^= u32(v);
      return r;
    case banksim_exchange::kMatchAny:
      return equal;
    case banksim_exchange::kMatchAll:
      return equal == lanes ? lanes : 0;
    default:
      return 0;
  }
}

// ---- Warp requests --------------------------------------------------------------------------

void Launch::flush_warp(unsigned warp) {
  const unsigned first = warp * bankmodel::kWarpSize;
  const unsigned last = std::min(first + bankmodel::kWarpSize, num_threads_);
  const unsigned lanes = last - first;
  const bool regrouping = options_.widths != nullptr;
  if (!regrouping && !result_.mergeable) look_for_merges(first, last);
  if (regrouping) repiece(first, last);
  std::vector<WarpRequest> requests;  // only when regrouping: the bank model sees them after
  // The common case first: every lane ran the same instructions in the same order, so the k-th
  // access of each lane forms request k. Runs for as long as the lanes agree.
  // The lanes' buffers are emptied here, their contents read below (clear() keeps the memory).
  const Access* trace[bankmodel::kWarpSize];
  std::size_t length[bankmodel::kWarpSize];
  std::size_t shortest = traces_[0].size();
  std::size_t longest = shortest;
  for (unsigned l = 0; l < lanes; ++l) {
    TraceBuffer<Access>& buffer = traces_[l];
    trace[l] = buffer.data();
    length[l] = buffer.size();
    buffer.clear();
    shortest = std::min(shortest, length[l]);
    longest = std::max(longest, length[l]);
  }
  // Lanes that noted different loop epochs at the same point of their traces ran different
  // iterations from there on: the k-th accesses agree only up to that point.
  const TraceBuffer<EpochRun>& runs0 = epoch_runs_[0];
  for (unsigned l = 1; l < lanes && shortest != 0; ++l) {
    const TraceBuffer<EpochRun>& runs = epoch_runs_[l];
    const std::size_t n = std::min(runs.size(), runs0.size());
    std::size_t i = 0;
    while (i < n && runs[i].pos == runs0[i].pos && runs[i].epoch == runs0[i].epoch) ++i;
    if (i < n) {
      shortest = std::min<std::size_t>(shortest, std::min(runs[i].pos, runs0[i].pos));
    } else if (i < runs.size()) {
      shortest = std::min<std::size_t>(shortest, runs[i].pos);
    } else if (i < runs0.size()) {
      shortest = std::min<std::size_t>(shortest, runs0[i].pos);
    }
  }
  if (longest == 0) {  // nothing traced since the warp's last stop (a barrier-only stretch)
    end_epoch_interval(first, last);
    flush_global(first, last);
    return;
  }
  const Access* lane_access[bankmodel::kWarpSize];
  std::fill(lane_access + lanes, lane_access + bankmodel::kWarpSize, nullptr);  // a partial warp
  std::size_t k = 0;
  for (; k < shortest; ++k) {
    // One pass, no early exit: the lanes agree on the instruction (pc, and size, op and sub
    // compared as one word).
    const Access& a0 = trace[0][k];
    const auto tag = [](const Access& a) {
      std::uint32_t t;
      std::memcpy(&t, &a.size, sizeof t);
      return t;
    };
    static_assert(offsetof(Access, sub) + sizeof(Access::sub) - offsetof(Access, size) == 4,
                  "size, op and sub are one 4-byte word");
    const std::uint32_t tag0 = tag(a0);
    bool same = true;
    for (unsigned l = 1; l < lanes; ++l) {
      const Access& a = trace[l][k];
      same &= (a.pc == a0.pc) & (tag(a) == tag0);
    }
    if (!same) break;
    bankmodel::Request r(static_cast<Op>(a0.op), a0.size);
    for (unsigned l = 0; l < lanes; ++l) {
      const Access& a = trace[l][k];
      r.set_lane(static_cast<int>(l), a.offset);
      lane_access[l] = &a;
    }
    if (regrouping) {
      requests.emplace_back();
      WarpRequest& w = requests.back();
      w.pc = a0.pc;
      w.sub = a0.sub;
      w.request = r;
      std::copy(std::begin(lane_access), std::end(lane_access), w.lanes);
    } else {
      add_request(lane_access, r);
    }
  }
  if (k < longest) {
    // Divergent lanes from access k on: the lanes' executions of (pc, sub, op, width) in the
    // same loop epoch (the same iteration of the same loops) are what the hardware issues
    // together, and the k-th such execution by each lane forms request k of that site and epoch
    // (the agreeing prefix counts the same for every lane). Without loop epochs (a module built
    // without the regions pass) every epoch is 0: each lane's k-th execution of the site. A
    // call site whose lanes use different widths (a memcpy of a lane-dependent size) gives one
    // request per width: every lane is kept.
    using Site =
        std::tuple<std::uint64_t, std::uint16_t, std::uint8_t, std::uint8_t, std::uint32_t>;
    const auto epoch_at = [](const TraceBuffer<EpochRun>& runs, std::size_t* run, std::size_t j) {
      while (*run + 1 < runs.size() && runs[*run + 1].pos <= j) ++*run;
      return *run < runs.size() && runs[*run].pos <= j ? runs[*run].epoch : 0U;
    };
    std::map<Site, std::uint64_t> prefix;
    std::size_t run = 0;
    for (std::size_t j = 0; j < k; ++j) {
      const Access& a = trace[0][j];
      ++prefix[Site{a.pc, a.sub, a.op, a.size, epoch_at(runs0, &run, j)}];
    }
    std::vector<WarpRequest> rest;
    std::map<std::tuple<Site, std::uint64_t>, std::size_t> index;
    for (unsigned i = first; i < last; ++i) {
      std::map<Site, std::uint64_t> seen = prefix;
      const TraceBuffer<EpochRun>& runs = epoch_runs_[i - first];
      run = 0;
      for (std::size_t j = k; j < length[i - first]; ++j) {
        const Access& a = trace[i - first][j];
        const Site site{a.pc, a.sub, a.op, a.size, epoch_at(runs, &run, j)};
        const auto key = std::make_tuple(site, seen[site]++);
        auto it = index.find(key);
        if (it == index.end()) {
          it = index.emplace(key, rest.size()).first;
          rest.emplace_back();
          rest.back().pc = a.pc;
          rest.back().sub = a.sub;
          rest.back().request = bankmodel::Request(static_cast<Op>(a.op), a.size);
        }
        WarpRequest& p = rest[it->second];
        p.request.set_lane(static_cast<int>(i - first), a.offset);
        p.lanes[i - first] = &a;
      }
    }
    if (requests.empty()) {
      requests = std::move(rest);
    } else {
      for (WarpRequest& w : rest) requests.push_back(std::move(w));
    }
  }
  if (!requests.empty()) {
    if (regrouping) regroup(&requests);
    for (const WarpRequest& w : requests) add_request(w.lanes, w.request);
  }
  end_epoch_interval(first, last);
  flush_global(first, last);
}

void Launch::end_epoch_interval(unsigned first, unsigned last) {
  // The next interval's traces start empty: each lane notes its epoch at its first access.
  for (unsigned i = first; i < last; ++i) {
    epoch_runs_[i - first].clear();
    threads_[i].epoch_noted = kEpochUnnoted;
  }
}

void Launch::flush_global(unsigned first, unsigned last) {
  // As for shared accesses: the k-th execution of (pc, op, width) by each lane forms request k
  // of that instruction; while the lanes ran the same accesses in the same order, one pass.
  const unsigned lanes_n = last - first;
  if (options_.widths != nullptr) repiece_global(first, last);
  const GlobalAccess* trace[bankmodel::kWarpSize];
  std::size_t length[bankmodel::kWarpSize];
  std::size_t shortest = global_traces_[0].size();
  std::size_t longest = shortest;
  for (unsigned l = 0; l < lanes_n; ++l) {
    TraceBuffer<GlobalAccess>& buffer = global_traces_[l];
    trace[l] = buffer.data();
    length[l] = buffer.size();
    buffer.clear();  // read below (clear() keeps the memory)
    shortest = std::min(shortest, length[l]);
    longest = std::max(longest, length[l]);
  }
  if (longest == 0) return;
  const GlobalAccess* lanes[bankmodel::kWarpSize];
  std::fill(lanes + lanes_n, lanes + bankmodel::kWarpSize, nullptr);  // a partial warp
  SectorSet& loaded = loaded_;  // sectors this warp loaded since its last barrier
  loaded.clear();
  std::size_t k = 0;
  for (; k < shortest; ++k) {
    // One pass, no early exit: the lanes agree on the instruction, and whether they access
    // consecutive elements (a coalesced run, add_global_request's common case).
    const GlobalAccess& a0 = trace[0][k];
    lanes[0] = &a0;
    bool same = true;
    bool run = lanes_n == bankmodel::kWarpSize;
    for (unsigned l = 1; l < lanes_n; ++l) {
      const GlobalAccess& a = trace[l][k];
      lanes[l] = &a;
      same &= (a.pc == a0.pc) & (a.op == a0.op) & (a.size == a0.size);
      run &= a.address == a0.address + l * a0.size;
    }
    if (!same) break;
    add_global_request(lanes, &loaded, run);
  }
  if (k < longest) {
    using Site = std::tuple<std::uint64_t, std::uint8_t, std::uint8_t>;
    std::map<Site, std::uint64_t> prefix;  // the agreeing prefix counts the same in every lane
    for (std::size_t j = 0; j < k; ++j) {
      const GlobalAccess& a = trace[0][j];
      ++prefix[Site{a.pc, a.op, a.size}];
    }
    std::vector<std::array<const GlobalAccess*, bankmodel::kWarpSize>> requests;
    std::map<std::tuple<Site, std::uint64_t>, std::size_t> index;
    for (unsigned i = first; i < last; ++i) {
      std::map<Site, std::uint64_t> seen = prefix;
      for (std::size_t j = k; j < length[i - first]; ++j) {
        const GlobalAccess& a = trace[i - first][j];
        const Site site{a.pc, a.op, a.size};
        const auto key = std::make_tuple(site, seen[site]++);
        auto it = index.find(key);
        if (it == index.end()) {
          it = index.emplace(key, requests.size()).first;
          requests.emplace_back();
          requests.back().fill(nullptr);
        }
        requests[it->second][i - first] = &a;
      }
    }
    for (const auto& r : requests) add_global_request(r.data(), &loaded, false);
  }
}

void Launch::add_global_request(const GlobalAccess* const* lanes, SectorSet* loaded_sectors,
                                bool run) {
  std::uintptr_t sectors[2 * bankmodel::kWarpSize];
  int n = 0;
  int active = 0;
  const GlobalAccess* any = nullptr;
  // The common case, a whole warp on consecutive elements (coalesced): the sectors are one run
  // (`run`: the caller saw it).
  if (!run) {
    run = lanes[0] != nullptr;
    for (int i = 1; i < bankmodel::kWarpSize && run; ++i) {
      run = lanes[i] != nullptr && lanes[i]->address == lanes[0]->address + i * lanes[0]->size;
    }
  }
  std::uint64_t distinct = 0;
  if (run) {
    any = lanes[0];
    active = bankmodel::kWarpSize;
    const std::uintptr_t lo = any->address >> 5;
    const std::uintptr_t hi = (any->address + bankmodel::kWarpSize * any->size - 1) >> 5;
    for (std::uintptr_t sct = lo; sct <= hi; ++sct) sectors[n++] = sct;
    distinct = static_cast<std::uint64_t>(n);
  } else {
    for (int i = 0; i < bankmodel::kWarpSize; ++i) {
      const GlobalAccess* a = lanes[i];
      if (a == nullptr) continue;
      any = a;
      ++active;
      sectors[n++] = a->address >> 5;
      const std::uintptr_t last_sector = (a->address + a->size - 1) >> 5;
      if (last_sector != sectors[n - 1]) sectors[n++] = last_sector;  // a misaligned access
    }
    if (any == nullptr) return;
    if (!std::is_sorted(sectors, sectors + n)) std::sort(sectors, sectors + n);  // lanes in order
    distinct = static_cast<std::uint64_t>(std::unique(sectors, sectors + n) - sectors);
  }
  std::uint64_t lines = 0, fresh = 0;
  for (std::uint64_t i = 0; i < distinct; ++i) {
    if (i == 0 || (sectors[i] >> 2) != (sectors[i - 1] >> 2)) ++lines;  // 4 sectors a line
    if (static_cast<Op>(any->op) != Op::kLoad || loaded_sectors->insert(sectors[i])) ++fresh;
  }
  GlobalSlot& slot = global_cache_[(any->pc ^ (any->pc >> 7)) % global_cache_.size()];
  if (slot.index == SIZE_MAX || slot.pc != any->pc || slot.op != any->op ||
      slot.size != any->size) {
    const auto key = std::make_tuple(any->pc, any->op, any->size);
    auto it = global_index_.find(key);
    if (it == global_index_.end()) {
      it = global_index_.emplace(key, global_sites_.size()).first;
      GlobalSiteStats s;
      s.pc = any->pc;
      s.op = static_cast<Op>(any->op);
      s.bytes = any->size;
      global_sites_.push_back(s);
    }
    slot = GlobalSlot{any->pc, it->second, any->op, any->size};
  }
  GlobalSiteStats& s = global_sites_[slot.index];
  s.requests += 1;
  s.sectors += distinct;
  s.lines += lines;
  s.fresh += fresh;
  const auto ideal = static_cast<std::uint64_t>((active * any->size + 31) / 32);
  s.ideal += std::min(ideal, distinct);
}

void Launch::add_request(const Access* const* lane_access, const bankmodel::Request& request) {
  const Access* any = nullptr;
  for (int i = 0; i < bankmodel::kWarpSize && any == nullptr; ++i) any = lane_access[i];
  if (any == nullptr) return;
  // The site's stats: a small direct-mapped cache in front of the ordered index.
  const std::uint64_t tag = any->pc ^ (std::uint64_t{any->sub} << 48) ^
                            (std::uint64_t{static_cast<std::uint8_t>(request.op())} << 40) ^
                            (static_cast<std::uint64_t>(request.width()) << 32);
  SiteSlot& slot = site_cache_[(tag ^ (tag >> 7) ^ (tag >> 17)) % site_cache_.size()];
  std::size_t index = slot.index;
  if (slot.index == SIZE_MAX || slot.pc != any->pc || slot.sub != any->sub ||
      slot.op != request.op() || slot.width != request.width()) {
    const auto key = std::make_tuple(any->pc, any->sub, static_cast<std::uint8_t>(request.op()),
                                     static_cast<std::uint8_t>(request.width()));
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
    index = it->second;
    slot = SiteSlot{any->pc, index, any->sub, request.op(), request.width()};
  }
  SiteStats& s = sites_[index];
  bankmodel::Summary sum = bankmodel::count_wavefronts(request);
  if (request.op() == Op::kAtomic && options_.widths != nullptr && rule_for(any->pc).atomic_add) {
    // nvcc's ATOMS.ADD (a per-lane value): lanes on one word are not merged as for a constant
    // increment; each costs a wavefront of its bank (H200: 8 lanes on one word, 8 wavefronts).
    std::array<int, bankmodel::kNumBanks> per_bank{};
    int most = 0;
    for (int l = 0; l < bankmodel::kWarpSize; ++l) {
      if (request.is_active(l)) most = std::max(most, ++per_bank[(request.offset(l) / 4) % 32]);
    }
    sum.wavefronts = std::max(sum.wavefronts, most);
  }
  s.requests += 1;
  s.wavefronts += static_cast<std::uint64_t>(sum.wavefronts);
  s.ideal += static_cast<std::uint64_t>(sum.ideal);
  if (sum.excess() > s.worst_excess) {
    s.worst_excess = sum.excess();
    s.worst = request;
  }
}

// ---- Barriers and warp rendezvous ----------------------------------------------------------

int Launch::syncthreads(std::uint64_t pc, int predicate) {
  Thread* t = current_;
  if (t == nullptr) return 0;
  resolve_pending();
  check_abort();
  state_[t->linear] = State::kAtBarrier;
  t->barrier_pc = pc;
  t->barrier_result = true;
  t->x_value = predicate != 0 ? 1 : 0;
  barrier_count_ += t->x_value;
  arrived_at_barrier(pc);
  if (regions_) return 0;  // the kernel returns here (a plain barrier: the pass cut only those)
  suspend(*t);
  check_abort();
  return static_cast<int>(barrier_result_);
}

unsigned long long Launch::warp_rendezvous(unsigned mask, unsigned long long value, int src,
                                           int mode, std::uint64_t pc) {
  Thread* t = current_;
  if (t == nullptr) return value;
  resolve_pending();
  check_abort();
  state_[t->linear] = State::kAtWarpSync;
  t->barrier_result = false;
  t->x_mask = mask;
  t->x_value = value;
  t->x_src = src;
  t->x_mode = mode;
  t->x_pc = pc;
  if (regions_) {
    ++warp_waiting_;
    return 0;  // the kernel returns here; banksim_current_result brings the result
  }
  suspend(*t);
  check_abort();
  return t->x_result;
}

RawProblem* Launch::report(const std::string& kind, bool warning, std::uint64_t pc,
                           std::uint64_t other_pc, const Thread* t, std::uint16_t other_thread,
                           int var, const std::string& message) {
  const std::string key = kind + ":" + std::to_string(pc) + ":" + std::to_string(other_pc);
  auto it = problem_index_.find(key);
  if (it != problem_index_.end()) {
    result_.problems[it->second].count += 1;
    return nullptr;
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
  return &result_.problems.back();
}

}  // namespace banksim::rt::detail
