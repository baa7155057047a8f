// Property tests of the bank model, and an independent brute-force model that must agree with it
// on >= 100,000 random requests of every width.
#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <set>
#include "course_catch.hpp"

#include "bankmodel/bank_model.hpp"

using bankmodel::count_wavefronts;
using bankmodel::kWarpSize;
using bankmodel::Op;
using bankmodel::Request;
using bankmodel::Summary;

namespace {

constexpr int kWidths[] = {1, 2, 4, 8, 16};

// The reference model, written from the spec text without sharing code with the library: map
// every (phase, bank) to the set of words it must deliver, then sum the per-phase maxima.
struct Brute {
  int wavefronts = 0;
  int ideal = 0;
};

Brute brute_force(Op op, int width, std::uint32_t active, const std::uint64_t* offset) {
  auto active_lane = [&](int n) { return (active >> n) & 1U; };
  bool paired = false;
  if (op == Op::kLoad && width == 16 && active != 0) {
    for (int partner_bit : {1, 2}) {
      bool all = true;
      for (int n = 0; n < 32; ++n) {
        if (active_lane(n) &&
            (!active_lane(n ^ partner_bit) || offset[n] != offset[n ^ partner_bit]))
          all = false;
      }
      paired = paired || all;
    }
  }
  auto phase_of = [&](int n) {
    if (width <= 4) return 0;
    if (width == 8 || paired) return n / 16;
    return n / 8;
  };
  std::map<int, std::map<std::uint64_t, std::set<std::uint64_t>>> words;  // phase -> bank -> words
  for (int n = 0; n < 32; ++n) {
    if (!active_lane(n)) continue;
    for (std::uint64_t byte = offset[n]; byte < offset[n] + width; ++byte) {
      const std::uint64_t word = byte / 4;
      words[phase_of(n)][word % 32].insert(word);
    }
  }
  Brute b;
  for (const auto& [phase, banks] : words) {
    std::size_t most = 0;
    for (const auto& [bank, set] : banks) most = std::max(most, set.size());
    b.wavefronts += static_cast<int>(most);
    b.ideal += 1;
  }
  return b;
}

// A random request shaped like real access patterns: strides, broadcasts, small offset pools
// (so that words and banks collide often) and random inactive lanes.
Request random_request(std::mt19937_64& rng, int width, Op op) {
  Request r(op, width);
  std::uniform_int_distribution<int> kind(0, 6);
  std::uniform_int_distribution<std::uint64_t> unit(0, 96);
  const int k = kind(rng);
  const std::uint64_t base = unit(rng) * 64;
  const std::uint64_t stride = unit(rng) % 40;
  const std::uint32_t mask =
      (kind(rng) == 0) ? static_cast<std::uint32_t>(rng()) : 0xffffffffU;  // 1 in 7: some inactive
  for (int t = 0; t < kWarpSize; ++t) {
    if (((mask >> t) & 1U) == 0) continue;
    std::uint64_t element = 0;
    const auto lane = static_cast<std::uint64_t>(t);
    switch (k) {
      case 0:  // stride
        element = stride * lane;
        break;
      case 1:  // repeating groups
        element = stride * (lane % (1 + unit(rng) % 8));
        break;
      case 2:  // small pool: words and banks collide often
        element = unit(rng) % 64;
        break;
      case 3:  // broadcast
        element = 0;
        break;
      case 4:  // swizzle-like
        element = (lane ^ (unit(rng) % 32)) + 32 * (lane % 4);
        break;
      case 5:  // lanes n and n^1 share an address (16-byte pairing candidates)
        element = (stride + 1) * (lane >> 1);
        break;
      default:  // lanes n and n^2 share an address
        element = (stride + 1) * (lane & ~std::uint64_t{2});
        break;
    }
    r.set_lane(t, base + element * static_cast<std::uint64_t>(width));
  }
  return r;
}

Brute brute(const Request& r) {
  std::uint64_t offsets[32];
  for (int t = 0; t < 32; ++t) offsets[t] = r.offset(t);
  return brute_force(r.op(), r.width(), r.active_mask(), offsets);
}

}  // namespace

TEST_CASE("brute force agrees with the model on 100,000 random requests per width", "[property]") {
  std::mt19937_64 rng(20261130);
  for (int width : kWidths) {
    for (Op op : {Op::kLoad, Op::kStore}) {
      int disagreements = 0;
      for (int i = 0; i < 50000; ++i) {
        const Request r = random_request(rng, width, op);
        const Summary s = count_wavefronts(r);
        const Brute b = brute(r);
        if (s.wavefronts != b.wavefronts || s.ideal != b.ideal) {
          if (++disagreements <= 3) {
            FAIL_CHECK("width " << width << " " << bankmodel::to_string(op) << ": model "
                                << s.wavefronts << "/" << s.ideal << ", brute force "
                                << b.wavefronts << "/" << b.ideal);
          }
        }
        // analyze() is a second path through the model; it must give the same totals.
        if (i % 16 == 0) {
          const bankmodel::Analysis a = bankmodel::analyze(r);
          int sum = 0;
          for (const auto& p : a.phases) sum += p.wavefronts;
          REQUIRE(sum == s.wavefronts);
        }
      }
      INFO("width " << width);
      CHECK(disagreements == 0);
    }
  }
}

TEST_CASE("shifting all addresses by whole words keeps wavefronts", "[property]") {
  std::mt19937_64 rng(1);
  for (int width : kWidths) {
    for (int i = 0; i < 5000; ++i) {
      const Request r = random_request(rng, width, Op::kLoad);
      // A shift must keep every lane aligned to the width: a multiple of max(4, width) bytes.
      const std::uint64_t shift = static_cast<std::uint64_t>(std::max(4, width)) * (1 + rng() % 64);
      Request shifted(r.op(), r.width());
      for (int t = 0; t < kWarpSize; ++t) {
        if (r.is_active(t)) shifted.set_lane(t, r.offset(t) + shift);
      }
      const Summary a = count_wavefronts(r);
      const Summary b = count_wavefronts(shifted);
      CHECK(a.wavefronts == b.wavefronts);
      CHECK(a.ideal == b.ideal);
      if (width <= 4 && shift % 4 == 0 && r.active_count() > 0) {
        // The banks are permuted: the first active lane's bank moves by shift/4 (mod 32).
        int t = 0;
        while (!r.is_active(t)) ++t;
        CHECK(bankmodel::bank_of(shifted.offset(t)) ==
              static_cast<int>((bankmodel::bank_of(r.offset(t)) + shift / 4) % 32));
      }
    }
  }
}

TEST_CASE("permuting lanes within a phase changes nothing", "[property]") {
  std::mt19937_64 rng(2);
  for (int width : kWidths) {
    const int lanes_per_phase = width <= 4 ? 32 : (width == 8 ? 16 : 8);
    for (int i = 0; i < 5000; ++i) {
      const Request r = random_request(rng, width, Op::kStore);  // stores: no pairing exception
      int perm[32];
      for (int t = 0; t < 32; ++t) perm[t] = t;
      for (int start = 0; start < 32; start += lanes_per_phase) {
        std::shuffle(perm + start, perm + start + lanes_per_phase, rng);
      }
      Request p(r.op(), r.width());
      for (int t = 0; t < 32; ++t) {
        if (r.is_active(t)) p.set_lane(perm[t], r.offset(t));
      }
      CHECK(count_wavefronts(p).wavefronts == count_wavefronts(r).wavefronts);
      CHECK(count_wavefronts(p).ideal == count_wavefronts(r).ideal);
    }
  }
}

TEST_CASE("broadcast: any number of lanes on one word costs one wavefront", "[property]") {
  for (int width : {1, 2, 4}) {
    for (int n = 1; n <= 32; ++n) {
      Request r(Op::kLoad, width);
      for (int t = 0; t < n; ++t) r.set_lane(t, 4096);
      CHECK(count_wavefronts(r).wavefronts == 1);
    }
  }
  // Multicast: two words in different banks, each read by 16 lanes.
  Request r(Op::kLoad, 4);
  for (int t = 0; t < 32; ++t) r.set_lane(t, t % 2 == 0 ? 0 : 4);
  CHECK(count_wavefronts(r).wavefronts == 1);
  // Two words in the SAME bank, each read by 16 lanes: 2 wavefronts.
  Request same_bank(Op::kLoad, 4);
  for (int t = 0; t < 32; ++t) same_bank.set_lane(t, t % 2 == 0 ? 0 : 128);
  CHECK(count_wavefronts(same_bank).wavefronts == 2);
}

TEST_CASE("inactive lanes cost nothing", "[property]") {
  std::mt19937_64 rng(3);
  for (int width : kWidths) {
    for (int i = 0; i < 2000; ++i) {
      Request r = random_request(rng, width, Op::kStore);
      const Summary before = count_wavefronts(r);
      // Deactivating a lane never adds wavefronts; re-adding a lane at a conflicting address of
      // an inactive lane is what costs.
      const int lane = static_cast<int>(rng() % 32);
      r.clear_lane(lane);
      const Summary after = count_wavefronts(r);
      CHECK(after.wavefronts <= before.wavefronts);
      CHECK(after.ideal <= before.ideal);
    }
    // Far-away, badly conflicting offsets on inactive lanes change nothing.
    Request a(Op::kStore, width);
    for (int t = 0; t < 32; t += 2) a.set_lane(t, static_cast<std::uint64_t>(width) * t);
    const Summary base = count_wavefronts(a);
    CHECK(brute(a).wavefronts == base.wavefronts);
  }
}
