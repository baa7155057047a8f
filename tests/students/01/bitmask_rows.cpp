// Student: one 32-bit mask per bank, bit = the word's row (word / 32) mod 32; popcount of the
// largest mask. Assumes a request's words all lie in the first 4 KiB (rows 0-31).
#include <cstdint>

#include "course_todo.h"

extern "C" int wavefronts_4byte(const long long* byte_address) {
  std::uint32_t rows[32] = {};
  for (int t = 0; t < 32; ++t) {
    if (byte_address[t] < 0) continue;
    const long long w = byte_address[t] / 4;
    rows[w % 32] |= 1u << ((w / 32) % 32);
  }
  int worst = 0;
  for (int b = 0; b < 32; ++b) {
    int c = 0;
    for (std::uint32_t m = rows[b]; m != 0; m &= m - 1) ++c;
    worst = c > worst ? c : worst;
  }
  return worst;
}
