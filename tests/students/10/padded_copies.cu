// Exercise 10 - a 256-bin histogram of skewed bytes without bank conflicts.
//
// Task: `data` holds n bytes, four to a word (byte k of word w is byte 4w + k; bytes past n in
// the last word are not data). Block b counts bytes [262144 b, 262144 (b + 1)) into its own 256
// bins: partial[256 b + v] = how many of them equal v. The data is skewed: about half the bytes
// are 0. With one table of 256 counters, lanes with equal bytes update one word and lanes whose
// bytes differ by a multiple of 32 meet in one bank. Give the counting a layout in which the
// bank of an update no longer depends on the data, and merge it back into 256 bins without
// conflicts (lesson 10). Stuck? make hint EXERCISE=10
// Launch: grid ceil(n / 262144), block 512.                Grade: make grade EXERCISE=10
#include "course_todo.h"

constexpr int kBins = 256;
constexpr int kThreads = 512;
constexpr int kWarp = 32;
constexpr int kBytesPerBlock = 262144;

__global__ void histogram256(unsigned* partial, const unsigned* data, int n) {
  COURSE_EXPECT(blockDim.x == kThreads, "block 512");
  __shared__ unsigned hist[kWarp][kBins + 1];  // rows of 257 words: bank (lane + v) mod 32
  for (int i = threadIdx.x; i < (kBins + 1) * kWarp; i += kThreads)
    hist[i / (kBins + 1)][i % (kBins + 1)] = 0;
  __syncthreads();
  const int lane = threadIdx.x % kWarp;
  const int first = blockIdx.x * kBytesPerBlock;
  const int bytes = min(kBytesPerBlock, n - first);
  const unsigned* words = data + first / 4;
  for (int w = threadIdx.x; 4 * w < bytes; w += kThreads) {
    const unsigned word = words[w];
    const int valid = min(4, bytes - 4 * w);  // the last word may hold fewer bytes
    for (int k = 0; k < valid; ++k) {
      const unsigned v = (word >> (8 * k)) & 0xFF;
      atomicAdd(&hist[lane][v], 1u);
    }
  }
  __syncthreads();
  for (int v = threadIdx.x; v < kBins; v += kThreads) {
    unsigned sum = 0;
    for (int l = 0; l < kWarp; ++l) sum += hist[l][v];
    partial[blockIdx.x * kBins + v] = sum;
  }
}
