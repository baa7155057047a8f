// Student: for each bank, scans the lanes and counts the words of that bank not seen before.
#include <cstdint>

#include "course_todo.h"

extern "C" int wavefronts_4byte(const long long* byte_address) {
  int worst = 0;
  for (int bank = 0; bank < 32; ++bank) {
    int distinct = 0;
    for (int t = 0; t < 32; ++t) {
      const long long a = byte_address[t];
      if (a < 0 || (a >> 2) % 32 != bank) continue;
      bool first = true;  // is lane t the first lane asking for this word?
      for (int u = 0; u < t; ++u) {
        if (byte_address[u] >= 0 && (byte_address[u] >> 2) == (a >> 2)) first = false;
      }
      if (first) ++distinct;
    }
    if (distinct > worst) worst = distinct;
  }
  return worst;
}
