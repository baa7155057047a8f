// Exercise 03 - strides: neighbouring differences of complex numbers without 2-way conflicts.
//
// Task: in holds n complex numbers interleaved (re0, im0, re1, im1, ...). Write
// out[i] = |z[i+1] - z[i]|^2 for i < n - 1. Each block of kBlock threads stages its kBlock + 1
// numbers in shared memory, then thread t reads numbers t and t + 1. Stored interleaved, the
// real parts sit at a stride of 2 words: a 2-way conflict on every access. Stage and read them
// so that every shared access is conflict-free.
// Launch: grid ceil((n - 1) / kBlock), block kBlock.       Grade: make grade EXERCISE=03
#include "course_todo.h"

constexpr int kBlock = 256;

__global__ void complex_neighbour_diff(float* out, const float* in, int n) {
  const int t = threadIdx.x;
  const int base = blockIdx.x * kBlock;
  // BEGIN SOLUTION ex03.1: stage numbers base .. base + kBlock in shared memory (~8 lines)
  __shared__ float re[kBlock + 1];  // structure of arrays: lane t reads word t -> bank t % 32
  __shared__ float im[kBlock + 1];
  for (int k = t; k < kBlock + 1; k += kBlock) {
    if (base + k < n) {
      re[k] = in[2 * (base + k)];
      im[k] = in[2 * (base + k) + 1];
    }
  }
  // SKELETON: __shared__ float z[2 * (kBlock + 1)];  // interleaved: re at 2k, im at 2k + 1
  // SKELETON: for (int k = t; k < kBlock + 1; k += kBlock) {
  // SKELETON:   if (base + k < n) {
  // SKELETON:     z[2 * k] = in[2 * (base + k)];  // word 2k: lanes t and t+16 share a bank
  // SKELETON:     z[2 * k + 1] = in[2 * (base + k) + 1];
  // SKELETON:   }
  // SKELETON: }
  // SKELETON: course_todo("TODO(ex03.1)");
  // END SOLUTION
  __syncthreads();
  if (base + t + 1 < n) {
    // BEGIN SOLUTION ex03.2: read numbers t and t + 1 from shared memory (~2 lines)
    const float dr = re[t + 1] - re[t];
    const float di = im[t + 1] - im[t];
    // SKELETON: const float dr = z[2 * t + 2] - z[2 * t];
    // SKELETON: const float di = z[2 * t + 3] - z[2 * t + 1];
    // SKELETON: course_todo("TODO(ex03.2)");
    // END SOLUTION
    out[base + t] = dr * dr + di * di;
  }
}
