// Student: takes the bank as the byte address mod 32 (forgot to divide by 4 first).
#include <cstdint>

#include "course_todo.h"

extern "C" int wavefronts_4byte(const long long* byte_address) {
  long long seen[32];
  int n = 0;
  int per_bank[32] = {};
  int worst = 0;
  for (int t = 0; t < 32; ++t) {
    const long long a = byte_address[t];
    if (a < 0) continue;
    bool dup = false;
    for (int i = 0; i < n; ++i) dup = dup || seen[i] == a / 4;
    if (dup) continue;
    seen[n++] = a / 4;
    const int b = static_cast<int>(a % 32);
    if (++per_bank[b] > worst) worst = per_bank[b];
  }
  return worst;
}
