// Student: counts the active lanes of each bank (forgot that lanes reading the same word share it).
#include <cstdint>

#include "course_todo.h"

extern "C" int wavefronts_4byte(const long long* byte_address) {
  int per_bank[32] = {};
  int worst = 0;
  for (int t = 0; t < 32; ++t) {
    if (byte_address[t] < 0) continue;
    const int b = static_cast<int>((byte_address[t] / 4) % 32);
    if (++per_bank[b] > worst) worst = per_bank[b];
  }
  return worst;
}
