// Exercise 03 - strides: a moving average of complex numbers without 2-way conflicts.
//
// Task: in holds n complex numbers interleaved (re0, im0, re1, im1, ...). Write the m = n - 31
// moving averages of 32 numbers, planar: out[i] = mean of re(z[i .. i+31]) and out[m + i] = mean
// of im(z[i .. i+31]), for i < m. Each block stages the kStage = kOut + 31 numbers its kOut
// outputs need in shared memory; threads 0-127 then average real parts, threads 128-255
// imaginary parts, each reading 32 staged values. Staged interleaved, a warp's 32 lanes read
// words 2 apart: every one of those reads is a 2-way conflict. Stage and read the numbers so that
// every shared access is conflict-free.
// Launch: grid ceil(m / kOut), block 2 * kOut = 256.        Grade: make grade EXERCISE=03
#include "course_todo.h"

constexpr int kTaps = 32;                 // numbers averaged per output
constexpr int kOut = 128;                 // outputs per block
constexpr int kStage = kOut + kTaps - 1;  // numbers staged per block

__global__ void complex_moving_average(float* out, const float* in, int n) {
  const int m = n - kTaps + 1;
  const int base = blockIdx.x * kOut;
  // TODO(ex03.1): stage numbers base .. base + kStage - 1 in shared memory (~8 lines)
  __shared__ float z[2 * kStage];  // interleaved: re at word 2k, im at 2k + 1
  for (int k = threadIdx.x; k < 2 * kStage; k += blockDim.x) {
    if (2 * base + k < 2 * n) z[k] = in[2 * base + k];
  }
  course_todo("TODO(ex03.1)");
  __syncthreads();
  const int part = threadIdx.x / kOut;  // 0: real, 1: imaginary (the same for a whole warp)
  const int i = threadIdx.x % kOut;
  if (base + i < m) {
    float sum = 0.0f;
    for (int j = 0; j < kTaps; ++j) {
      // TODO(ex03.2): add part `part` of number i + j (~1 line)
      sum += z[2 * (i + j) + part];
      course_todo("TODO(ex03.2)");
    }
    out[part * m + base + i] = sum * (1.0f / kTaps);
  }
}
