// Lesson 09 - the work-efficient (Blelloch) scan: the conflicting baseline of exercise 09.
// Each block scans one segment of kSegment = 1024 ints: out[i] = in[s] + ... + in[i - 1], s the
// first element of i's segment (an exclusive scan); the last segment may be shorter. A block
// of 512 threads, two elements per thread.
//   build/bin/banksim profile lessons/09-reductions-scans/scan_blelloch.cu
//       --kernel scan_blocks_blelloch --grid 3 --block 512 --arg 2500 --arg 2500 --arg 2500
constexpr int kThreads = 512;
constexpr int kSegment = 2 * kThreads;

//! [scan_blocks_blelloch]
__global__ void scan_blocks_blelloch(int* out, const int* in, int n) {
  __shared__ int temp[kSegment];
  const int t = threadIdx.x;
  const int first = blockIdx.x * kSegment;
  const int count = min(kSegment, n - first);  // the last segment may be shorter
  // zeros past the end: the identity of +, so the tree below needs no bounds
  temp[t] = t < count ? in[first + t] : 0;
  temp[t + kThreads] = t + kThreads < count ? in[first + t + kThreads] : 0;
  // up-sweep: at distance d, thread t adds word 2d(t+1) - 1 - d into word 2d(t+1) - 1
  for (int d = 1; d < kSegment; d *= 2) {
    __syncthreads();
    const int i = 2 * d * (t + 1) - 1;
    if (i < kSegment) temp[i] += temp[i - d];  // lanes 2d apart: min(2d, active lanes)-way
  }
  if (t == 0) temp[kSegment - 1] = 0;  // the same thread wrote it last: no barrier needed
  // down-sweep: the same pairs, in reverse order of distance
  for (int d = kSegment / 2; d >= 1; d /= 2) {
    __syncthreads();
    const int i = 2 * d * (t + 1) - 1;
    if (i < kSegment) {
      const int left = temp[i - d], right = temp[i];  // lanes 2d words apart again
      temp[i - d] = right;
      temp[i] = left + right;
    }
  }
  __syncthreads();
  if (t < count) out[first + t] = temp[t];
  if (t + kThreads < count) out[first + t + kThreads] = temp[t + kThreads];
}
//! [scan_blocks_blelloch]
