// bank_model.cpp - R0-R4 and R6 of docs/bank-rules.md.
#include "bankmodel/bank_model.hpp"

#include <algorithm>
#include <sstream>

namespace bankmodel {
namespace {

constexpr int kMaxWordsPerLane = 16 / kBankBytes;  // a 16-byte access covers 4 words (R1)
constexpr int kMaxWordsPerPhase = kWarpSize * kMaxWordsPerLane;

struct LaneRange {
  int first;
  int last;
};

void check_lane(int lane) {
  if (lane < 0 || lane >= kWarpSize) {
    throw InvalidRequest(
        "lane " + std::to_string(lane) +
        " is out of range: a warp has lanes 0..31 (lane = linear thread id mod 32)");
  }
}

// R2 exception: a 16-byte LOAD is served in two half-warp phases when every active lane n has an
// active partner n^1 (or, alternatively, n^2) at the same address. The spec marks partially
// active warps [open]; we require the partner to be active, which keeps the 4-phase rule (the
// conservative, more expensive answer) whenever a lane has no partner.
bool pairs_with(const Request& r, int mask) {
  for (int lane = 0; lane < kWarpSize; ++lane) {
    if (!r.is_active(lane)) continue;
    const int partner = lane ^ mask;
    if (!r.is_active(partner) || r.offset(partner) != r.offset(lane)) return false;
  }
  return true;
}

bool uses_16b_pairing(const Request& r) {
  return r.width() == 16 && r.op() == Op::kLoad && r.active_mask() != 0 &&
         (pairs_with(r, 1) || pairs_with(r, 2));
}

// R2: the lane ranges of the phases, in order.
int phase_ranges(const Request& r, bool paired, std::array<LaneRange, 4>& out) {
  int lanes_per_phase = kWarpSize;  // s <= 4: one phase
  if (r.width() == 8 || paired) {
    lanes_per_phase = 16;  // s = 8, or the 16-byte load exception: two half-warps
  } else if (r.width() == 16) {
    lanes_per_phase = 8;  // s = 16: four quarter-warps
  }
  const int n = kWarpSize / lanes_per_phase;
  for (int p = 0; p < n; ++p) {
    out[static_cast<std::size_t>(p)] = {p * lanes_per_phase, (p + 1) * lanes_per_phase - 1};
  }
  return n;
}

// R1: the words touched by one lane's access of `width` bytes at `offset`.
int words_of(std::uint64_t offset, int width, std::uint64_t* out) {
  const std::uint64_t first = word_of(offset);
  const std::uint64_t last = word_of(offset + static_cast<std::uint64_t>(width) - 1);
  int n = 0;
  for (std::uint64_t w = first; w <= last; ++w) out[n++] = w;
  return n;
}

// R3: W_p = max over banks of the number of DISTINCT words of that bank touched in the phase.
// Returns -1 for a phase with no active lane (it costs nothing).
int phase_wavefronts(const Request& r, LaneRange range) {
  // Fastest path: every word the active lanes touch is in a bank of its own (a conflict-free
  // row or column access): one wavefront. A branch-free pass over the lanes.
  {
    const int per_lane = r.width() <= kBankBytes ? 1 : r.width() / kBankBytes;  // aligned (R0)
    std::uint32_t banks = 0;
    int words = 0;
    if (per_lane == 1) {  // the usual case, shorter: a bit per lane
      for (int lane = range.first; lane <= range.last; ++lane) {
        const std::uint32_t on = (r.active_mask() >> lane) & 1U;
        banks |= on << (word_of(r.offset(lane)) % kNumBanks);
        words += static_cast<int>(on);
      }
    }
    for (int lane = range.first; lane <= range.last && per_lane > 1; ++lane) {
      const std::uint32_t on = (r.active_mask() >> lane) & 1U;
      const auto bank = static_cast<unsigned>(word_of(r.offset(lane)) % kNumBanks);
      // The lane's words are consecutive banks (mod 32), per_lane of them.
      const std::uint64_t run = ((std::uint64_t{1} << per_lane) - 1) << bank;
      banks |= on * static_cast<std::uint32_t>(run | (run >> kNumBanks));
      words += static_cast<int>(on) * per_lane;
    }
    if (words == 0) return -1;
    if (__builtin_popcount(banks) == words) return 1;
  }
  // Fast path, one pass: while no bank has been asked for two different words, the phase takes
  // one wavefront (broadcasts and multicasts included). The first bank asked for a second word
  // sends the phase to the general count below.
  {
    std::array<std::uint64_t, kNumBanks> first;  // the word each bank serves so far
    std::uint32_t seen = 0;
    const int per_lane = r.width() <= kBankBytes ? 1 : r.width() / kBankBytes;  // aligned (R0)
    bool conflict = false;
    std::uint64_t previous = ~std::uint64_t{0};  // a run of lanes on one address is one lane
    for (int lane = range.first; lane <= range.last && !conflict; ++lane) {
      if (!r.is_active(lane) || r.offset(lane) == previous) continue;
      previous = r.offset(lane);
      const std::uint64_t w0 = word_of(r.offset(lane));
      for (int j = 0; j < per_lane; ++j) {
        const std::uint64_t w = w0 + static_cast<std::uint64_t>(j);
        const auto bank = static_cast<unsigned>(w % kNumBanks);
        if ((seen >> bank & 1U) == 0) {
          seen |= 1U << bank;
          first[bank] = w;
        } else if (first[bank] != w) {
          conflict = true;
          break;
        }
      }
    }
    if (!conflict) return seen == 0 ? -1 : 1;
  }
  std::array<std::uint64_t, kMaxWordsPerPhase> words{};
  int n = 0;
  for (int lane = range.first; lane <= range.last; ++lane) {
    if (r.is_active(lane))
      n += words_of(r.offset(lane), r.width(), &words[static_cast<std::size_t>(n)]);
  }
  if (n == 0) return -1;
  // Distinct words: sort, then count each new word in its bank. Insertion sort: n <= 64 and the
  // words of a warp are usually nearly sorted by lane.
  for (int i = 1; i < n; ++i) {
    const std::uint64_t w = words[static_cast<std::size_t>(i)];
    int j = i - 1;
    while (j >= 0 && words[static_cast<std::size_t>(j)] > w) {
      words[static_cast<std::size_t>(j) + 1] = words[static_cast<std::size_t>(j)];
      --j;
    }
    words[static_cast<std::size_t>(j) + 1] = w;
  }
  std::array<int, kNumBanks> per_bank{};
  int worst = 0;
  for (int i = 0; i < n; ++i) {
    const std::uint64_t w = words[static_cast<std::size_t>(i)];
    if (i > 0 && w == words[static_cast<std::size_t>(i - 1)]) continue;  // broadcast / one writer
    const int count = ++per_bank[w % kNumBanks];
    worst = std::max(worst, count);
  }
  return worst;
}

// R6: an atomic that nvcc builds as a compare-and-swap loop retries until every lane has
// succeeded; each pass, one lane per address succeeds and, within a phase, one lane per bank.
// The passes are the larger of the most lanes on one address and, over the phases, the most
// lanes of one phase on one bank. Returns -1 for a request with no active lane.
int cas_loop_passes(const Request& r, const std::array<LaneRange, 4>& ranges, int phases) {
  int most = -1;
  for (int lane = 0; lane < kWarpSize; ++lane) {
    if (!r.is_active(lane)) continue;
    int same = 0;
    for (int other = 0; other < kWarpSize; ++other) {
      same += (r.is_active(other) && r.offset(other) == r.offset(lane)) ? 1 : 0;
    }
    most = std::max(most, same);
  }
  for (int p = 0; p < phases; ++p) {
    std::array<int, kNumBanks> per_bank{};
    for (int lane = ranges[static_cast<std::size_t>(p)].first;
         lane <= ranges[static_cast<std::size_t>(p)].last; ++lane) {
      if (!r.is_active(lane)) continue;
      const int bank = bank_of(r.offset(lane));
      most = std::max(most, ++per_bank[static_cast<std::size_t>(bank)]);
    }
  }
  return most;
}

}  // namespace

bool is_valid_width(int width_bytes) {
  return width_bytes == 1 || width_bytes == 2 || width_bytes == 4 || width_bytes == 8 ||
         width_bytes == 16;
}

Request::Request(Op op, int width_bytes) : op_(op), width_(width_bytes) {
  if (!is_valid_width(width_bytes)) {
    throw InvalidRequest("access width " + std::to_string(width_bytes) +
                         " bytes is not a shared-memory access: use 1, 2, 4, 8 or 16 bytes");
  }
}

void Request::bad_lane(int lane, std::uint64_t byte_offset) const {
  check_lane(lane);
  throw InvalidRequest("lane " + std::to_string(lane) + ": offset " + std::to_string(byte_offset) +
                       " is not aligned to the " + std::to_string(width_) +
                       "-byte access width (R0: accesses are naturally aligned); align the "
                       "address to a multiple of " +
                       std::to_string(width_));
}

void Request::clear_lane(int lane) {
  check_lane(lane);
  active_ &= ~(1U << lane);
}

Request Request::all_lanes(Op op, int width_bytes,
                           const std::array<std::uint64_t, kWarpSize>& offsets) {
  Request r(op, width_bytes);
  for (int lane = 0; lane < kWarpSize; ++lane)
    r.set_lane(lane, offsets[static_cast<std::size_t>(lane)]);
  return r;
}

int Request::active_count() const {
  return __builtin_popcount(active_);
}

int Phase::worst_bank() const {
  int best = -1;
  std::size_t most = 0;
  for (int b = 0; b < kNumBanks; ++b) {
    const std::size_t n = banks[static_cast<std::size_t>(b)].words.size();
    if (n > most) {
      most = n;
      best = b;
    }
  }
  return best;
}

Summary count_wavefronts(const Request& request) {
  Summary s;
  s.paired_16b = uses_16b_pairing(request);
  std::array<LaneRange, 4> ranges{};
  s.phases = phase_ranges(request, s.paired_16b, ranges);
  if (request.op() == Op::kAtomicLoop) {
    const int passes = cas_loop_passes(request, ranges, s.phases);
    if (passes > 0) {
      s.wavefronts = passes;
      s.ideal = 1;
    }
    return s;
  }
  for (int p = 0; p < s.phases; ++p) {
    const int w = phase_wavefronts(request, ranges[static_cast<std::size_t>(p)]);
    if (w < 0) continue;  // R3: an empty phase costs nothing and is not part of the ideal
    s.wavefronts += w;    // R4
    s.ideal += 1;
  }
  return s;
}

Analysis analyze(const Request& request) {
  Analysis a{request, count_wavefronts(request), {}};
  std::array<LaneRange, 4> ranges{};
  const int n = phase_ranges(request, a.summary.paired_16b, ranges);
  for (int p = 0; p < n; ++p) {
    Phase phase;
    phase.first_lane = ranges[static_cast<std::size_t>(p)].first;
    phase.last_lane = ranges[static_cast<std::size_t>(p)].last;
    for (int lane = phase.first_lane; lane <= phase.last_lane; ++lane) {
      if (!request.is_active(lane)) continue;
      std::array<std::uint64_t, kMaxWordsPerLane> words{};
      const int k = words_of(request.offset(lane), request.width(), words.data());
      for (int i = 0; i < k; ++i) {
        BankLoad& bank = phase.banks[words[static_cast<std::size_t>(i)] % kNumBanks];
        const std::uint64_t w = words[static_cast<std::size_t>(i)];
        if (std::find(bank.words.begin(), bank.words.end(), w) == bank.words.end()) {
          bank.words.insert(std::upper_bound(bank.words.begin(), bank.words.end(), w), w);
        }
        if (bank.lanes.empty() || bank.lanes.back() != lane) bank.lanes.push_back(lane);
      }
    }
    for (const BankLoad& bank : phase.banks) {
      phase.wavefronts = std::max(phase.wavefronts, static_cast<int>(bank.words.size()));
    }
    a.phases.push_back(std::move(phase));
  }
  return a;
}

std::string describe(const Summary& summary) {
  std::ostringstream out;
  if (summary.ideal == 0) return "no active lane, 0 wavefronts";
  if (summary.wavefronts == summary.ideal) {
    out << "conflict-free";
  } else {
    const double ways = summary.ways();
    out.precision(ways == static_cast<int>(ways) ? 0 : 2);
    out << std::fixed << ways << "-way conflict";
  }
  out << ", " << summary.wavefronts << (summary.wavefronts == 1 ? " wavefront" : " wavefronts")
      << " (ideal " << summary.ideal << ")";
  return out.str();
}

}  // namespace bankmodel
