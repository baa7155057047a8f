// rendezvous.cpp - barriers and warp rendezvous: __syncthreads, and the __syncwarp, shuffles,
// votes, reductions and matches whose lanes wait for each other (which lanes a round releases,
// what each gets back). Part of banksim's engine (engine.hpp).
#include <algorithm>
#include <cstddef>
#include <cstring>
#include <map>
#include <tuple>
#include <vector>

#include "engine.hpp"

namespace banksim::rt::detail {

using bankmodel::Op;

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

}  // namespace banksim::rt::detail
