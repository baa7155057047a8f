// Lesson 03 - strides. stride_read: lane t reads s[t * stride] (gcd(stride, 32)-way);
// complex_moving_average_interleaved: the conflicting baseline of exercise 03.
//   build/bin/banksim profile lessons/03-strides/strides.cu --kernel stride_read
//       --block 32 --arg 32 --arg 6
constexpr int kWarp = 32;

//! [stride_read]
__global__ void stride_read(float* out, int stride) {
  __shared__ float s[kWarp * 33];
  const int t = threadIdx.x;
  for (int i = t; i < kWarp * 33; i += kWarp) s[i] = static_cast<float>(i);
  __syncthreads();
  out[t] = s[t * stride];  // word t*stride -> bank (t*stride) % 32
}
//! [stride_read]

constexpr int kTaps = 32;                 // samples averaged per output
constexpr int kOut = 128;                 // outputs per block: 2 * kOut threads
constexpr int kStage = kOut + kTaps - 1;  // complex numbers a block stages

//! [complex_moving_average_interleaved]
// in: n complex numbers interleaved (re, im). out: the m = n - kTaps + 1 moving averages of
// kTaps numbers, planar: out[i] = mean re(z[i .. i+31]), out[m + i] = mean im(z[i .. i+31]).
// Threads 0-127 (warps 0-3) average real parts, threads 128-255 imaginary parts.
__global__ void complex_moving_average_interleaved(float* out, const float* in, int n) {
  __shared__ float z[2 * kStage];  // re of number k at word 2k, im at 2k + 1
  const int m = n - kTaps + 1;
  const int base = blockIdx.x * kOut;
  for (int k = threadIdx.x; k < 2 * kStage; k += blockDim.x) {
    if (2 * base + k < 2 * n) z[k] = in[2 * base + k];  // a straight copy: word k, bank k % 32
  }
  __syncthreads();
  const int part = threadIdx.x / kOut;  // 0: real, 1: imaginary (the same for a whole warp)
  const int i = threadIdx.x % kOut;
  if (base + i < m) {
    float sum = 0.0f;
    for (int j = 0; j < kTaps; ++j) sum += z[2 * (i + j) + part];  // stride 2 words: 2-way
    out[part * m + base + i] = sum * (1.0f / kTaps);
  }
}
//! [complex_moving_average_interleaved]
