// regroup.cpp - a warp's shared requests regrouped into the widths another compiler emits
// (RunOptions::widths, built by Module from nvcc's SASS). clang may trace bs[tx][kk] and
// bs[tx][kk + 1] as two 4-byte requests where nvcc emits one LDS.64, or one 16-byte access where
// nvcc emits four LDS; the bank model must see the instructions the GPU runs.
#include "engine.hpp"

namespace banksim::rt::detail {

namespace {

int widest(std::uint8_t mask) {
  for (int k = 4; k >= 0; --k) {
    if ((mask & (1U << k)) != 0) return 1 << k;
  }
  return 0;
}

/// Every active lane's offset is a multiple of `w`.
bool aligned(const bankmodel::Request& r, int w) {
  for (int lane = 0; lane < bankmodel::kWarpSize; ++lane) {
    if (r.is_active(lane) && r.offset(lane) % static_cast<std::uint64_t>(w) != 0) return false;
  }
  return true;
}

/// `next` continues `prev` in every lane: same lanes, each `width` bytes further on.
bool continues(const bankmodel::Request& prev, const bankmodel::Request& next) {
  if (next.active_mask() != prev.active_mask() || next.width() != prev.width()) return false;
  for (int lane = 0; lane < bankmodel::kWarpSize; ++lane) {
    if (prev.is_active(lane) &&
        next.offset(lane) != prev.offset(lane) + static_cast<std::uint64_t>(prev.width())) {
      return false;
    }
  }
  return true;
}

bankmodel::Request with_width(const bankmodel::Request& r, int width, std::uint64_t shift) {
  bankmodel::Request out(r.op(), width);
  for (int lane = 0; lane < bankmodel::kWarpSize; ++lane) {
    if (r.is_active(lane)) out.set_lane(lane, r.offset(lane) + shift);
  }
  return out;
}

// How far ahead a piece of a wider access may be in the warp's request list: an unrolled loop
// interleaves the pieces of several accesses of one line (as[ty][kk], bs[tx][kk], as[ty][kk+1]).
constexpr std::size_t kWindow = 64;

}  // namespace

void Launch::repiece(unsigned first, unsigned last) {
  // Whether accesses at `pc` of `op` and `size` bytes go the way nvcc cuts them, and how:
  // 0 = leave them.
  auto piece_mask = [this](const Access& a) -> std::uint8_t {
    const WidthRule& rule = rule_for(code_pc(a.pc));
    if (rule.group == 0) return 0;
    return static_cast<Op>(a.op) == Op::kLoad    ? rule.load
           : static_cast<Op>(a.op) == Op::kStore ? rule.store
                                                 : std::uint8_t{0};
  };
  // The rules of pcs not seen before, asked in one batch (this runs on the scheduler's stack).
  std::vector<std::uint64_t> unknown;
  for (unsigned i = first; i < last; ++i) {
    for (const Access& a : traces_[i - first]) {
      if ((a.sub != 0 || a.size > 4 || (a.size & (a.size - 1)) != 0) &&
          rules_.emplace(code_pc(a.pc), WidthRule{}).second) {
        unknown.push_back(code_pc(a.pc));
      }
    }
  }
  if (!unknown.empty()) {
    const std::vector<WidthRule> got = options_.widths->rules(unknown);
    for (std::size_t k = 0; k < unknown.size() && k < got.size(); ++k) rules_[unknown[k]] = got[k];
  }
  TraceBuffer<Access> out;
  for (unsigned i = first; i < last; ++i) {
    TraceBuffer<Access>& t = traces_[i - first];
    bool any = false;
    for (const Access& a : t) {
      const std::uint8_t mask = a.sub != 0 || a.size > 4 || (a.size & (a.size - 1)) != 0
                                    ? piece_mask(a)
                                    : std::uint8_t{0};
      if (mask != 0 && (a.sub != 0 || a.size > widest(mask))) {
        any = true;
        break;
      }
    }
    if (!any) continue;
    out.clear();
    for (std::size_t j = 0; j < t.size();) {
      // One access: the entry at j and the pieces after it (sub 1, 2, ... at the same pc).
      std::size_t end = j + 1;
      std::uint32_t bytes = t[j].size;
      while (end < t.size() && t[end].sub != 0 && t[end].pc == t[j].pc && t[end].op == t[j].op &&
             t[end].offset == t[j].offset + bytes) {
        bytes += t[end].size;
        ++end;
      }
      const std::uint8_t mask = piece_mask(t[j]);
      int w = 0;  // the widest width nvcc uses there that divides the access and its address
      for (int k = widest(mask); k >= 1 && w == 0; k /= 2) {
        if ((mask & k) != 0 && bytes % static_cast<std::uint32_t>(k) == 0 &&
            t[j].offset % static_cast<std::uint32_t>(k) == 0) {
          w = k;
        }
      }
      const bool cut = w != 0 && (end - j > 1 || static_cast<int>(bytes) > widest(mask));
      if (!cut) {
        out.insert(out.end(), t.begin() + static_cast<std::ptrdiff_t>(j),
                   t.begin() + static_cast<std::ptrdiff_t>(end));
      } else {
        for (std::uint32_t k = 0; k * static_cast<std::uint32_t>(w) < bytes; ++k) {
          out.push_back(Access{t[j].pc, t[j].offset + k * static_cast<std::uint32_t>(w),
                               static_cast<std::uint8_t>(w), t[j].op,
                               static_cast<std::uint16_t>(k)});
        }
        ++regrouped_;
      }
      j = end;
    }
    t.swap(out);
  }
}

void Launch::repiece_global(unsigned first, unsigned last) {
  // Global accesses go the way nvcc cuts them too, for the sectors of each request: clang moves
  // a float3 as one 12-byte load or an 8+4-byte store where nvcc emits three 4-byte LDG/STG, so
  // one warp request of 12-byte strided lanes becomes three of 4 bytes (measured on the H200:
  // tests/everyday float3_particles). An access is only ever cut, never merged with another (a
  // global access carries no mark that it is a piece of a wider one): one wider than every
  // width nvcc uses for that kind on the line, or of a size that is no power of two, becomes
  // pieces of the widest of nvcc's widths that divides its size, all lanes alike.
  auto cuttable = [](const GlobalAccess& a) { return a.size > 4 || (a.size & (a.size - 1)) != 0; };
  std::vector<std::uint64_t> unknown;
  for (unsigned i = first; i < last; ++i) {
    for (const GlobalAccess& a : global_traces_[i - first]) {
      if (cuttable(a) && rules_.emplace(a.pc, WidthRule{}).second) unknown.push_back(a.pc);
    }
  }
  if (!unknown.empty()) {
    const std::vector<WidthRule> got = options_.widths->rules(unknown);
    for (std::size_t k = 0; k < unknown.size() && k < got.size(); ++k) rules_[unknown[k]] = got[k];
  }
  // The width to cut an access into, 0 to keep it.
  auto cut_width = [this, &cuttable](const GlobalAccess& a) -> std::uint32_t {
    if (!cuttable(a)) return 0;
    const WidthRule& rule = rule_for(a.pc);
    const std::uint8_t mask =
        static_cast<Op>(a.op) == Op::kLoad ? rule.global_load : rule.global_store;
    if (mask == 0 || (a.size <= widest(mask) && (a.size & (a.size - 1)) == 0)) return 0;
    for (int k = widest(mask); k >= 1; k /= 2) {
      if ((mask & k) != 0 && a.size % k == 0) return static_cast<std::uint32_t>(k);
    }
    return 0;
  };
  TraceBuffer<GlobalAccess> out;
  for (unsigned i = first; i < last; ++i) {
    TraceBuffer<GlobalAccess>& t = global_traces_[i - first];
    bool any = false;
    for (const GlobalAccess& a : t) {
      if (cut_width(a) != 0) {
        any = true;
        break;
      }
    }
    if (!any) continue;
    out.clear();
    for (const GlobalAccess& a : t) {
      const std::uint32_t w = cut_width(a);
      if (w == 0) {
        out.push_back(a);
        continue;
      }
      for (std::uint32_t k = 0; k * w < a.size; ++k) {
        out.push_back(GlobalAccess{a.pc, a.address + k * w, static_cast<std::uint8_t>(w), a.op});
      }
    }
    t.swap(out);
  }
}

void Launch::regroup(std::vector<WarpRequest>* requests) {
  const WidthPlan* plan = options_.widths;
  if (plan == nullptr || requests->empty()) return;
  // Rules of program counters not seen before in this launch, asked for in one batch.
  std::vector<std::uint64_t> unknown;
  for (const WarpRequest& w : *requests) {
    if (rules_.find(code_pc(w.pc)) == rules_.end()) {
      rules_.emplace(code_pc(w.pc), WidthRule{});
      unknown.push_back(code_pc(w.pc));
    }
  }
  if (!unknown.empty()) {
    const std::vector<WidthRule> got = plan->rules(unknown);
    for (std::size_t i = 0; i < unknown.size() && i < got.size(); ++i) rules_[unknown[i]] = got[i];
  }
  std::vector<WarpRequest> out;
  out.reserve(requests->size());
  std::vector<bool> used(requests->size(), false);
  auto mask_of = [](const WidthRule& r, Op op) {
    return op == Op::kLoad ? r.load : op == Op::kStore ? r.store : std::uint8_t{0};
  };
  for (std::size_t i = 0; i < requests->size(); ++i) {
    if (used[i]) continue;
    WarpRequest& w = (*requests)[i];
    const WidthRule& rule = rules_[code_pc(w.pc)];
    const Op op = w.request.op();
    const std::uint8_t mask = mask_of(rule, op);
    const int s = w.request.width();
    if (rule.group == 0 || mask == 0 || w.sub != 0) {
      out.push_back(std::move(w));
      continue;
    }
    const int top = widest(mask);
    if (s > top) {
      // nvcc splits it (a struct copied field by field): pieces of its widest width.
      for (int k = 0; k < s / top; ++k) {
        WarpRequest piece = w;
        piece.request = with_width(w.request, top, static_cast<std::uint64_t>(k * top));
        piece.sub = static_cast<std::uint16_t>(k);
        out.push_back(std::move(piece));
      }
      ++regrouped_;
      continue;
    }
    bool merged = false;
    // The next statement's widths count too: a pair of 4-byte accesses on consecutive statements
    // that nvcc merged, its 8-byte instruction at either line.
    const std::uint8_t next_mask = op == Op::kLoad    ? rule.next_load
                                   : op == Op::kStore ? rule.next_store
                                                      : std::uint8_t{0};
    const std::uint8_t either = rule.next_group != 0 ? mask | next_mask : mask;
    for (int wide = widest(either); wide > s && !merged; wide /= 2) {
      if ((either & wide) == 0 || !aligned(w.request, wide)) continue;
      const int pieces = wide / s;
      std::vector<std::size_t> chain{i};
      for (std::size_t j = i + 1;
           j < requests->size() && j <= i + kWindow && static_cast<int>(chain.size()) < pieces;
           ++j) {
        const WarpRequest& c = (*requests)[j];
        if (used[j] || c.sub != 0 || c.request.op() != op) continue;
        const std::uint32_t g = rules_[code_pc(c.pc)].group;
        // Same statement (where nvcc uses this width), or the next one (two accesses, one each).
        const bool same = g == rule.group && (mask & wide) != 0;
        const bool next = g != 0 && g == rule.next_group && pieces == 2;
        if (!same && !next) continue;
        if (continues((*requests)[chain.back()].request, c.request)) chain.push_back(j);
      }
      if (static_cast<int>(chain.size()) != pieces) continue;
      for (std::size_t j : chain) used[j] = true;
      WarpRequest m = w;
      m.request = with_width(w.request, wide, 0);
      out.push_back(std::move(m));
      ++regrouped_;
      merged = true;
    }
    if (!merged) out.push_back(std::move(w));
  }
  *requests = std::move(out);
}

void Launch::look_for_merges(unsigned first, unsigned last) {
  // Lane `first`'s trace proposes pairs (an access and one of the next few of the same op and
  // width that continues it, aligned to twice the width); every other lane must agree.
  const TraceBuffer<Access>& t0 = traces_[0];
  constexpr std::size_t kAhead = 8;
  for (std::size_t k = 0; k < t0.size(); ++k) {
    const Access& a = t0[k];
    if (a.size >= 16 || a.op == static_cast<std::uint8_t>(Op::kAtomic) ||
        a.offset % (2U * a.size) != 0) {
      continue;
    }
    for (std::size_t j = k + 1; j < t0.size() && j <= k + kAhead; ++j) {
      const Access& b = t0[j];
      if (b.op != a.op || b.size != a.size || b.offset != a.offset + a.size) continue;
      bool all = true;
      for (unsigned i = first + 1; i < last && all; ++i) {
        const TraceBuffer<Access>& t = traces_[i - first];
        all = t.size() > j && t[k].pc == a.pc && t[j].pc == b.pc &&
              t[k].offset % (2U * a.size) == 0 && t[j].offset == t[k].offset + a.size;
      }
      if (all) {
        result_.mergeable = true;
        return;
      }
    }
  }
}

}  // namespace banksim::rt::detail
