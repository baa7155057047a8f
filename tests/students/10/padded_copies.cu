// Exercise 10 - a 256-bin histogram of a posterised image without bank conflicts.
//
// Task: `data` holds n bytes, four to a word (byte k of word w is byte 4w + k; bytes past n in
// the last word are not data): the pixels of a 16-level grey image, level k stored as the byte
// 16 k, a quarter of them black (0). Block b counts bytes [262144 b, 262144 (b + 1)) into its
// own 256 bins: partial[256 b + v] = how many of them equal v. The loads are given: each thread
// loads two uint4 (32 bytes) before it counts them, then the block's tail word by word. With one
// table of 256 counters every byte of this image lands in bank 0 or 16. Give the counting a
// layout in which the bank of an update no longer depends on the data, and merge it back into
// 256 bins without conflicts (lesson 10). Stuck? make hint EXERCISE=10
// Launch: grid ceil(n / 262144), block 512.                Grade: make grade EXERCISE=10
#include "course_todo.h"

constexpr int kBins = 256;
constexpr int kThreads = 512;
constexpr int kWarp = 32;
constexpr int kBytesPerBlock = 262144;
constexpr int kLoads = 2;  // uint4 loads a thread keeps in flight before it counts

__global__ void histogram256(unsigned* partial, const unsigned* data, int n) {
  COURSE_EXPECT(blockDim.x == kThreads, "block 512");
  __shared__ unsigned hist[kWarp][kBins + 1];  // rows of 257 words: bank (lane + v) mod 32
  for (int i = threadIdx.x; i < (kBins + 1) * kWarp; i += kThreads)
    hist[i / (kBins + 1)][i % (kBins + 1)] = 0;
  __syncthreads();
  const int lane = threadIdx.x % kWarp;
  const auto count = [&](unsigned v) { atomicAdd(&hist[lane][v], 1u); };
  const auto count_word = [&](unsigned word) {
    for (int k = 0; k < 4; ++k) count((word >> (8 * k)) & 0xFF);
  };
  const int first = blockIdx.x * kBytesPerBlock;
  const int bytes = min(kBytesPerBlock, n - first);
  const unsigned* words = data + first / 4;
  const uint4* quads = reinterpret_cast<const uint4*>(words);  // 16-byte aligned: first % 16 == 0
  // Both loads are issued before the first count, so a thread has 32 bytes in flight.
  const int main_quads = bytes / 16 / (kLoads * kThreads) * (kLoads * kThreads);
  for (int q = threadIdx.x; q < main_quads; q += kLoads * kThreads) {
    const uint4 a = __ldg(&quads[q]);
    const uint4 b = __ldg(&quads[q + kThreads]);
    count_word(a.x);
    count_word(a.y);
    count_word(a.z);
    count_word(a.w);
    count_word(b.x);
    count_word(b.y);
    count_word(b.z);
    count_word(b.w);
  }
  // The tail (only the last block has one): whole words, then the bytes of a last partial word.
  for (int w = 4 * main_quads + threadIdx.x; w < bytes / 4; w += kThreads) count_word(words[w]);
  if (threadIdx.x == 0) {
    for (int i = bytes / 4 * 4; i < bytes; ++i) count((words[i / 4] >> (8 * (i % 4))) & 0xFF);
  }
  __syncthreads();
  for (int v = threadIdx.x; v < kBins; v += kThreads) {
    unsigned sum = 0;
    for (int l = 0; l < kWarp; ++l) sum += hist[l][v];
    partial[blockIdx.x * kBins + v] = sum;
  }
}
