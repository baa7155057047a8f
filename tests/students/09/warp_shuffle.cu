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
constexpr int kWarp = 32;
constexpr int kWarps = kThreads / kWarp;

// A scan by warp shuffles: each thread sums its two elements, the warps scan those sums in
// registers, and only the 16 warp totals go through shared memory.
__global__ void scan_blocks(int* out, const int* in, int n) {
  __shared__ int warp_total[kWarps];
  const int t = threadIdx.x;
  const int lane = t % kWarp, warp = t / kWarp;
  const int first = blockIdx.x * kSegment;
  const int count = min(kSegment, n - first);
  const int a = 2 * t < count ? in[first + 2 * t] : 0;
  const int b = 2 * t + 1 < count ? in[first + 2 * t + 1] : 0;
  int sum = a + b;  // inclusive scan of the pair sums within the warp
  for (int d = 1; d < kWarp; d *= 2) {
    const int up = __shfl_up_sync(0xffffffffu, sum, d);
    if (lane >= d) sum += up;
  }
  if (lane == kWarp - 1) warp_total[warp] = sum;
  __syncthreads();
  if (warp == 0) {  // scan the 16 warp totals, exclusive
    int total = lane < kWarps ? warp_total[lane] : 0;
    int incl = total;
    for (int d = 1; d < kWarp; d *= 2) {
      const int up = __shfl_up_sync(0xffffffffu, incl, d);
      if (lane >= d) incl += up;
    }
    if (lane < kWarps) warp_total[lane] = incl - total;
  }
  __syncthreads();
  const int before = warp_total[warp] + sum - (a + b);  // everything before element 2t
  if (2 * t < count) out[first + 2 * t] = before;
  if (2 * t + 1 < count) out[first + 2 * t + 1] = before + a;
}
