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
  // TODO(ex03.1): stage numbers base .. base + kBlock in shared memory (~8 lines)
  __shared__ float z[2 * (kBlock + 1)];  // interleaved: re at 2k, im at 2k + 1
  for (int k = t; k < kBlock + 1; k += kBlock) {
    if (base + k < n) {
      z[2 * k] = in[2 * (base + k)];  // word 2k: lanes t and t+16 share a bank
      z[2 * k + 1] = in[2 * (base + k) + 1];
    }
  }
  course_todo("TODO(ex03.1)");
  __syncthreads();
  if (base + t + 1 < n) {
    // TODO(ex03.2): read numbers t and t + 1 from shared memory (~2 lines)
    const float dr = z[2 * t + 2] - z[2 * t];
    const float di = z[2 * t + 3] - z[2 * t + 1];
    course_todo("TODO(ex03.2)");
    out[base + t] = dr * dr + di * di;
  }
}
