// Worked examples of docs/bank-rules.md, one TEST_CASE each, and invalid requests.
#include <cstdint>
#include <numeric>
#include "course_catch.hpp"

#include "bankmodel/bank_model.hpp"

using bankmodel::count_wavefronts;
using bankmodel::kWarpSize;
using bankmodel::Op;
using bankmodel::Request;
using bankmodel::Summary;

namespace {

// All 32 lanes active; lane t accesses byte offset f(t).
template <typename F>
Summary warp(Op op, int width, F f) {
  Request r(op, width);
  for (int t = 0; t < kWarpSize; ++t) r.set_lane(t, static_cast<std::uint64_t>(f(t)));
  return count_wavefronts(r);
}

void expect(const Summary& s, int wavefronts, int ideal) {
  CHECK(s.wavefronts == wavefronts);
  CHECK(s.ideal == ideal);
}

}  // namespace

TEST_CASE("R1: bank of an address is (addr / 4) mod 32", "[model]") {
  CHECK(bankmodel::bank_of(0) == 0);
  CHECK(bankmodel::bank_of(3) == 0);
  CHECK(bankmodel::bank_of(4) == 1);
  CHECK(bankmodel::bank_of(124) == 31);
  CHECK(bankmodel::bank_of(128) == 0);
  CHECK(bankmodel::bank_of(33 * 4 * 5) == 5);  // tile[5][0] of float tile[32][33]
}

TEST_CASE("example: float s[lane] is 1/1", "[model][example]") {
  expect(warp(Op::kLoad, 4, [](int t) { return 4 * t; }), 1, 1);
}

TEST_CASE("example: stride 3 floats is 1/1, stride 33 floats is 1/1", "[model][example]") {
  expect(warp(Op::kLoad, 4, [](int t) { return 4 * 3 * t; }), 1, 1);
  expect(warp(Op::kLoad, 4, [](int t) { return 4 * 33 * t; }), 1, 1);
}

TEST_CASE("example: stride 2 floats is 2/1", "[model][example]") {
  expect(warp(Op::kLoad, 4, [](int t) { return 4 * 2 * t; }), 2, 1);
}

TEST_CASE("example: stride s floats, s <= 32, is gcd(s,32)/1", "[model][example]") {
  for (int s = 1; s <= 32; ++s) {
    INFO("stride " << s);
    expect(warp(Op::kLoad, 4, [s](int t) { return 4 * s * t; }), std::gcd(s, 32), 1);
    expect(warp(Op::kStore, 4, [s](int t) { return 4 * s * t; }), std::gcd(s, 32), 1);
  }
}

TEST_CASE("example: column read of float tile[32][32] is 32/1", "[model][example]") {
  for (int c : {0, 7, 31}) {
    expect(warp(Op::kLoad, 4, [c](int t) { return 4 * (32 * t + c); }), 32, 1);
  }
}

TEST_CASE("example: column read of float tile[32][33] is 1/1", "[model][example]") {
  for (int c : {0, 7, 31}) {
    expect(warp(Op::kLoad, 4, [c](int t) { return 4 * (33 * t + c); }), 1, 1);
  }
}

TEST_CASE("example: XOR swizzle tile[r][c ^ r] is 1/1 by row and by column", "[model][example]") {
  for (int fixed = 0; fixed < 32; ++fixed) {
    // column c=fixed, lane t is row t
    expect(warp(Op::kLoad, 4, [fixed](int t) { return 4 * (32 * t + (fixed ^ t)); }), 1, 1);
    // row r=fixed, lane t is column t
    expect(warp(Op::kLoad, 4, [fixed](int t) { return 4 * (32 * fixed + (t ^ fixed)); }), 1, 1);
  }
}

TEST_CASE("example: all lanes read one word (broadcast) is 1/1", "[model][example]") {
  expect(warp(Op::kLoad, 4, [](int) { return 256; }), 1, 1);
}

TEST_CASE("example: char s[lane] (8 words) is 1/1", "[model][example]") {
  expect(warp(Op::kLoad, 1, [](int t) { return t; }), 1, 1);
}

TEST_CASE("example: short at stride 32 shorts is 16/1", "[model][example]") {
  expect(warp(Op::kLoad, 2, [](int t) { return 2 * 32 * t; }), 16, 1);
}

TEST_CASE("example: 8-byte contiguous double s[lane] is 2/2", "[model][example]") {
  expect(warp(Op::kLoad, 8, [](int t) { return 8 * t; }), 2, 2);
}

TEST_CASE("example: 8-byte store to column of double sm[32][32] is 32/2", "[model][example]") {
  expect(warp(Op::kStore, 8, [](int t) { return 8 * (32 * t + 5); }), 32, 2);
}

TEST_CASE("example: 16-byte contiguous float4 s[lane] is 4/4", "[model][example]") {
  expect(warp(Op::kLoad, 16, [](int t) { return 16 * t; }), 4, 4);
  expect(warp(Op::kStore, 16, [](int t) { return 16 * t; }), 4, 4);
}

TEST_CASE("example: 16-byte at stride 128 B is 32/4", "[model][example]") {
  expect(warp(Op::kLoad, 16, [](int t) { return 128 * t; }), 32, 4);
}

TEST_CASE("example: 16-byte load, all lanes same address, is 2/2 (pairing)", "[model][example]") {
  const Summary s = warp(Op::kLoad, 16, [](int) { return 64; });
  expect(s, 2, 2);
  CHECK(s.paired_16b);
}

TEST_CASE("example: 16-byte load, lanes 0-15 at A and 16-31 at B, is 2/2", "[model][example]") {
  expect(warp(Op::kLoad, 16, [](int t) { return t < 16 ? 0 : 4096; }), 2, 2);
}

TEST_CASE("example: 16-byte load at offset 32*(lane mod 16) is 8/4", "[model][example]") {
  const Summary s = warp(Op::kLoad, 16, [](int t) { return 32 * (t % 16); });
  expect(s, 8, 4);
  CHECK_FALSE(s.paired_16b);
}

TEST_CASE("example: 16-byte load at offset 16*(lane mod 4) is 4/4", "[model][example]") {
  expect(warp(Op::kLoad, 16, [](int t) { return 16 * (t % 4); }), 4, 4);
}

TEST_CASE("R2: the 16-byte pairing exception is for loads only", "[model]") {
  // A store of one address by all lanes keeps its four phases: one word-set per phase.
  const Summary s = warp(Op::kStore, 16, [](int) { return 64; });
  expect(s, 4, 4);
  CHECK_FALSE(s.paired_16b);
}

TEST_CASE("R3/R4: inactive lanes and empty phases cost nothing", "[model]") {
  Request none(Op::kLoad, 4);
  expect(count_wavefronts(none), 0, 0);
  Request one(Op::kLoad, 16);
  one.set_lane(9, 1024);  // only phase 1 (lanes 8-15) is non-empty
  expect(count_wavefronts(one), 1, 1);
  Request half(Op::kLoad, 8);
  for (int t = 0; t < 16; ++t) half.set_lane(t, 8 * 32 * t);  // column of double[32][32]
  expect(count_wavefronts(half), 16, 1);
}

TEST_CASE("invalid requests are rejected with a clear message", "[model][errors]") {
  CHECK_THROWS_WITH(Request(Op::kLoad, 3), HasSubstr("1, 2, 4, 8 or 16"));
  CHECK_THROWS_WITH(Request(Op::kLoad, 32), HasSubstr("32 bytes"));
  CHECK_THROWS_WITH(Request(Op::kLoad, 0), HasSubstr("not a shared-memory access"));
  Request r(Op::kLoad, 8);
  CHECK_THROWS_WITH(r.set_lane(3, 4), HasSubstr("not aligned") && HasSubstr("lane 3"));
  CHECK_THROWS_WITH(r.set_lane(32, 0), HasSubstr("lane 32 is out of range"));
  CHECK_THROWS_WITH(r.set_lane(-1, 0), HasSubstr("out of range"));
  CHECK_THROWS_AS(r.clear_lane(40), bankmodel::InvalidRequest);
  Request r16(Op::kStore, 16);
  CHECK_THROWS_AS(r16.set_lane(0, 8), bankmodel::InvalidRequest);
  CHECK_NOTHROW(r16.set_lane(0, 16));
}

TEST_CASE("describe() names the conflict degree", "[model]") {
  CHECK(bankmodel::describe(warp(Op::kLoad, 4, [](int t) { return 128 * t; })) ==
        "32-way conflict, 32 wavefronts (ideal 1)");
  CHECK(bankmodel::describe(warp(Op::kLoad, 16, [](int t) { return 16 * t; })) ==
        "conflict-free, 4 wavefronts (ideal 4)");
  CHECK(bankmodel::describe(warp(Op::kLoad, 16, [](int t) { return 32 * (t % 16); })) ==
        "2-way conflict, 8 wavefronts (ideal 4)");
}

TEST_CASE("analyze() agrees with count_wavefronts() and lists each bank's words", "[model]") {
  Request r(Op::kLoad, 4);
  for (int t = 0; t < kWarpSize; ++t) r.set_lane(t, 4 * 32 * t);  // column of tile[32][32]
  const bankmodel::Analysis a = bankmodel::analyze(r);
  REQUIRE(a.phases.size() == 1);
  CHECK(a.phases[0].wavefronts == 32);
  CHECK(a.phases[0].worst_bank() == 0);
  CHECK(a.phases[0].banks[0].words.size() == 32);
  CHECK(a.phases[0].banks[0].lanes.size() == 32);
  CHECK(a.phases[0].banks[1].words.empty());
  CHECK(a.summary.wavefronts == 32);
}

TEST_CASE("R6 worked examples: shared atomics, native and CAS loops (measured on the H200)",
          "[model][example]") {
  // Native ATOMS (atomicAdd on int): like a store, the same word counted once.
  expect(warp(Op::kAtomic, 4, [](int t) { return 4 * 32 * t; }), 32, 1);
  expect(warp(Op::kAtomic, 4, [](int) { return 0; }), 1, 1);
  expect(warp(Op::kAtomic, 4, [](int t) { return 4 * 2 * t; }), 2, 1);
  expect(warp(Op::kAtomic, 4, [](int t) { return 4 * (t / 2); }), 1, 1);
  // CAS loops (atomicAdd on float, u64): one lane per address and per bank succeeds each pass.
  expect(warp(Op::kAtomicLoop, 4, [](int) { return 0; }), 32, 1);
  expect(warp(Op::kAtomicLoop, 4, [](int t) { return 4 * (t / 2); }), 2, 1);
  expect(warp(Op::kAtomicLoop, 4, [](int t) { return 4 * t; }), 1, 1);
  expect(warp(Op::kAtomicLoop, 4, [](int t) { return 4 * 32 * t; }), 32, 1);
  expect(warp(Op::kAtomicLoop, 8, [](int t) { return 8 * 16 * t; }), 16, 1);
  expect(warp(Op::kAtomicLoop, 8, [](int t) { return 8 * 2 * t; }), 2, 1);
  expect(warp(Op::kAtomicLoop, 8, [](int) { return 0; }), 32, 1);
  CHECK(std::string(bankmodel::to_string(Op::kAtomic)) == "atomic");
  CHECK(std::string(bankmodel::to_string(Op::kAtomicLoop)) == "atomic-loop");
}
