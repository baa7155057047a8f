// requests.cpp - a warp's traces zipped into warp requests at each of its stops: the lanes'
// accesses to shared memory into bank requests (the k-th execution of an instruction by each lane
// in the same loop epoch forms one request), and to device buffers into 32-byte sectors. Part of
// banksim's engine (engine.hpp).
#include <algorithm>
#include <cstddef>
#include <cstring>
#include <map>
#include <tuple>
#include <vector>

#include "engine.hpp"

namespace banksim::rt::detail {

using bankmodel::Op;

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
  if (longest == 0) {  // nothing traced since the warp's last stop (a barrier-only stretch)
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
    // same loop epoch (the same iteration of the same loops; the pc carries it, trace.hpp) are
    // what the hardware issues together, and the k-th such execution by each lane forms request
    // k of that site (the agreeing prefix counts the same for every lane). Without loop epochs
    // (no pass plugin) that is each lane's k-th execution of the site. A call site whose lanes
    // use different widths (a memcpy of a lane-dependent size) gives one request per width:
    // every lane is kept.
    using Site = std::tuple<std::uint64_t, std::uint16_t, std::uint8_t, std::uint8_t>;
    std::map<Site, std::uint64_t> prefix;
    for (std::size_t j = 0; j < k; ++j) {
      const Access& a = trace[0][j];
      ++prefix[Site{a.pc, a.sub, a.op, a.size}];
    }
    std::vector<WarpRequest> rest;
    std::map<std::tuple<Site, std::uint64_t>, std::size_t> index;
    for (unsigned i = first; i < last; ++i) {
      std::map<Site, std::uint64_t> seen = prefix;
      for (std::size_t j = k; j < length[i - first]; ++j) {
        const Access& a = trace[i - first][j];
        const Site site{a.pc, a.sub, a.op, a.size};
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
  flush_global(first, last);
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
  const std::uint64_t pc = code_pc(any->pc);  // the site's, whatever the loop epoch
  // The site's stats: a small direct-mapped cache in front of the ordered index.
  const std::uint64_t tag = pc ^ (std::uint64_t{any->sub} << 48) ^
                            (std::uint64_t{static_cast<std::uint8_t>(request.op())} << 40) ^
                            (static_cast<std::uint64_t>(request.width()) << 32);
  SiteSlot& slot = site_cache_[(tag ^ (tag >> 7) ^ (tag >> 17)) % site_cache_.size()];
  std::size_t index = slot.index;
  if (slot.index == SIZE_MAX || slot.pc != pc || slot.sub != any->sub || slot.op != request.op() ||
      slot.width != request.width()) {
    const auto key = std::make_tuple(pc, any->sub, static_cast<std::uint8_t>(request.op()),
                                     static_cast<std::uint8_t>(request.width()));
    auto it = site_index_.find(key);
    if (it == site_index_.end()) {
      it = site_index_.emplace(key, sites_.size()).first;
      SiteStats s;
      s.pc = pc;
      s.sub = any->sub;
      s.op = request.op();
      s.bytes = request.width();
      s.var = var_at(any->offset);
      sites_.push_back(s);
    }
    index = it->second;
    slot = SiteSlot{pc, index, any->sub, request.op(), request.width()};
  }
  SiteStats& s = sites_[index];
  bankmodel::Summary sum = bankmodel::count_wavefronts(request);
  if (request.op() == Op::kAtomic && options_.widths != nullptr && rule_for(pc).atomic_add) {
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

}  // namespace banksim::rt::detail
