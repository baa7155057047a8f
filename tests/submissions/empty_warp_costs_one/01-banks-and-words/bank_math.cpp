// Exercise 01 - banks and words: how many wavefronts does a warp's 4-byte request need?
//
// Task: implement wavefronts_4byte() below. A warp of 32 lanes reads or writes 4-byte words of
// shared memory; lane t accesses byte address byte_address[t] (a multiple of 4), or nothing when
// the address is negative (an inactive lane). The hardware serves all lanes in one pass
// (a "wavefront") unless several DISTINCT words of the same bank are wanted:
//   word(a) = a / 4,  bank(a) = word(a) mod 32,
//   wavefronts = max over banks of the number of distinct words of that bank (0 if no lane).
// Lanes asking for the same word share it (broadcast) and cost nothing extra.
//
// Grade: make grade EXERCISE=01   (random requests, compared with the course's bank model)
#include <cstdint>

#include "course_todo.h"

extern "C" int wavefronts_4byte(const long long* byte_address) {
  // BEGIN SOLUTION ex01.1: count the distinct words per bank, return the largest count (~15 lines)
  constexpr int kLanes = 32;
  constexpr int kBanks = 32;
  long long words[kLanes];
  int n = 0;
  for (int t = 0; t < kLanes; ++t) {
    if (byte_address[t] < 0) continue;  // inactive lane
    const long long w = byte_address[t] / 4;
    bool seen = false;  // the same word twice is one access (broadcast)
    for (int i = 0; i < n; ++i) seen = seen || words[i] == w;
    if (!seen) words[n++] = w;
  }
  int per_bank[kBanks] = {};
  int worst = 1;  // the mistake: a request with no active lane costs 0, not 1
  for (int i = 0; i < n; ++i) {
    const int count = ++per_bank[words[i] % kBanks];
    worst = count > worst ? count : worst;
  }
  return worst;
  // SKELETON: course_todo("TODO(ex01.1)");
  // SKELETON: return 0;
  // END SOLUTION
}
