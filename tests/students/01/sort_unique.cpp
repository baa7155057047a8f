// Student: sorts the active words, drops duplicates, then counts the distinct words of each bank.
#include <cstdint>

#include "course_todo.h"

extern "C" int wavefronts_4byte(const long long* byte_address) {
  long long words[32];
  int n = 0;
  for (int t = 0; t < 32; ++t) {
    if (byte_address[t] >= 0) words[n++] = byte_address[t] / 4;
  }
  // insertion sort, then one pass over the unique words
  for (int i = 1; i < n; ++i) {
    const long long w = words[i];
    int j = i - 1;
    while (j >= 0 && words[j] > w) {
      words[j + 1] = words[j];
      --j;
    }
    words[j + 1] = w;
  }
  int per_bank[32] = {};
  int worst = 0;
  for (int i = 0; i < n; ++i) {
    if (i > 0 && words[i] == words[i - 1]) continue;  // broadcast
    const int b = static_cast<int>(words[i] % 32);
    if (++per_bank[b] > worst) worst = per_bank[b];
  }
  return worst;
}
