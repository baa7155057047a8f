// scheduler.cpp - running a launch: blocks one after another, every CUDA thread a Boost.Context
// fiber (or a call per region of a kernel cut at its stops), warps run to their stop one after
// another, then flushed into warp requests (requests.cpp) or released at a rendezvous
// (rendezvous.cpp). See engine.hpp for the parts.
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
    if (k.function != entry_.function) continue;
    make_frames(k.frame_bytes);
    loop_epochs_ = k.loop_epochs;
  }
  g_loop_epoch = 0;  // an aborted launch may have left a thread's epoch
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
  if (loop_epochs_) {
    for (unsigned i = 0; i < num_threads_; ++i) threads_[i].loop_epoch = 0;
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
      if (loop_epochs_) enter_epoch(t);
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
      if (loop_epochs_) leave_epoch(t);
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
