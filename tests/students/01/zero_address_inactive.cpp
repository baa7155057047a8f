// Student: treats an address <= 0 as an inactive lane (byte 0 is a valid address).
#include <cstdint>

#include "course_todo.h"

extern "C" int wavefronts_4byte(const long long* byte_address) {
  long long words[32];
  int n = 0;
  for (int t = 0; t < 32; ++t) {
    if (byte_address[t] <= 0) continue;  // inactive
    const long long w = byte_address[t] / 4;
    bool seen = false;
    for (int i = 0; i < n; ++i) seen = seen || words[i] == w;
    if (!seen) words[n++] = w;
  }
  int per_bank[32] = {};
  int worst = 0;
  for (int i = 0; i < n; ++i) {
    const int c = ++per_bank[words[i] % 32];
    worst = c > worst ? c : worst;
  }
  return worst;
}
