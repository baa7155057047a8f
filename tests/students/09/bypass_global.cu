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

// No shared memory: every thread adds up its segment's earlier elements from global memory.
__global__ void scan_blocks(int* out, const int* in, int n) {
  const int first = blockIdx.x * kSegment;
  const int count = min(kSegment, n - first);
  for (int i = threadIdx.x; i < count; i += kThreads) {
    int sum = 0;
    for (int j = 0; j < i; ++j) sum += in[first + j];
    out[first + i] = sum;
  }
}
