// Exercise 09 - a conflict-free block-wide exclusive scan.
//
// Task: each block scans one segment of kSegment = 1024 ints: out[i] = in[s] + ... + in[i - 1],
// s the first element of i's segment (out[s] = 0); the last segment is shorter when n is not a
// multiple of 1024. The work-efficient (Blelloch) tree below is correct, but its up-sweep and
// down-sweep read words 2d apart at distance d: 2-, 4-, ... 32-way conflicts. Every access to
// temp goes through slot(i): make the tree conflict-free at every distance (lesson 09), or
// replace it by another conflict-free scan. Stuck? make hint EXERCISE=09
// Launch: grid ceil(n / 1024), block 512.                  Grade: make grade EXERCISE=09
#include "course_todo.h"

constexpr int kThreads = 512;
constexpr int kSegment = 2 * kThreads;
constexpr int kBanks = 32;

constexpr int kTempWords = kSegment + kSegment / kBanks;  // one pad word after every 32
__device__ __forceinline__ int slot(int i) {
  return i + i / kBanks;
}

__global__ void scan_blocks(int* out, const int* in, int n) {
  static_assert(kSegment % kBanks == 0, "segments of whole rows of banks");
  COURSE_EXPECT(blockDim.x == kThreads, "block 512");
  __shared__ int temp[kTempWords];
  const int t = threadIdx.x;
  const int first = blockIdx.x * kSegment;
  const int count = min(kSegment, n - first);     // the last segment may be shorter
  temp[slot(t)] = t < count ? in[first + t] : 0;  // zeros past the end: the identity of +
  temp[slot(t + kThreads)] = t + kThreads < count ? in[first + t + kThreads] : 0;
  for (int d = 1; d < kSegment; d *= 2) {  // up-sweep
    __syncthreads();
    const int i = 2 * d * (t + 1) - 1;
    if (i < kSegment) temp[slot(i)] += temp[slot(i - d)];
  }
  if (t == 0) temp[slot(kSegment - 1)] = 0;
  for (int d = kSegment / 2; d >= 1; d /= 2) {  // down-sweep
    __syncthreads();
    const int i = 2 * d * (t + 1) - 1;
    if (i < kSegment) {
      const int left = temp[slot(i - d)];
      temp[slot(i - d)] = temp[slot(i)];
      temp[slot(i)] += left;
    }
  }
  __syncthreads();
  if (t < count) out[first + t] = temp[slot(t)];
  if (t + kThreads <= count) out[first + t + kThreads] = temp[slot(t + kThreads)];
}
