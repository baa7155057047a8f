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

// Hillis-Steele: log2(1024) = 10 rounds over two buffers; in each round element i adds element
// i - d. Lanes read consecutive words: conflict-free, but 10 x 1024 additions instead of 2 x 1024.
__global__ void scan_blocks(int* out, const int* in, int n) {
  __shared__ int buf[2][kSegment];
  const int t = threadIdx.x;
  const int first = blockIdx.x * kSegment;
  const int count = min(kSegment, n - first);
  // shifted by one: buf[0][i] = in[i - 1], so the inclusive scan of buf is the exclusive one
  for (int i = t; i < kSegment; i += kThreads) {
    buf[0][i] = i > 0 && i - 1 < count ? in[first + i - 1] : 0;
  }
  int src = 0;
  for (int d = 1; d < kSegment; d *= 2) {
    __syncthreads();
    for (int i = t; i < kSegment; i += kThreads) {
      buf[1 - src][i] = buf[src][i] + (i >= d ? buf[src][i - d] : 0);
    }
    src = 1 - src;
  }
  __syncthreads();
  for (int i = t; i < count; i += kThreads) out[first + i] = buf[src][i];
}
