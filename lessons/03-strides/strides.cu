// Lesson 03 - strides. stride_read: lane t reads s[t * stride] (gcd(stride, 32)-way);
// complex_neighbour_diff_interleaved: the conflicting baseline of exercise 03.
//   build/bin/banksim profile lessons/03-strides/strides.cu --kernel stride_read
//       --block 32 --arg 32 --arg 6
constexpr int kWarp = 32;
constexpr int kBlock = 256;

//! [stride_read]
__global__ void stride_read(float* out, int stride) {
  __shared__ float s[kWarp * 33];
  const int t = threadIdx.x;
  for (int i = t; i < kWarp * 33; i += kWarp) s[i] = static_cast<float>(i);
  __syncthreads();
  out[t] = s[t * stride];  // word t*stride -> bank (t*stride) % 32
}
//! [stride_read]

//! [complex_neighbour_diff_interleaved]
// in: n complex numbers interleaved (re, im); out[i] = |z[i+1] - z[i]|^2.
__global__ void complex_neighbour_diff_interleaved(float* out, const float* in, int n) {
  __shared__ float z[2 * (kBlock + 1)];  // re of number k at word 2k, im at 2k + 1
  const int t = threadIdx.x;
  const int base = blockIdx.x * kBlock;
  for (int k = t; k < kBlock + 1; k += kBlock) {
    if (base + k < n) {
      z[2 * k] = in[2 * (base + k)];  // word 2k: bank 2k % 32, lanes k and k+16 collide
      z[2 * k + 1] = in[2 * (base + k) + 1];
    }
  }
  __syncthreads();
  if (base + t + 1 < n) {
    const float dr = z[2 * t + 2] - z[2 * t];  // stride 2 words: 2-way
    const float di = z[2 * t + 3] - z[2 * t + 1];
    out[base + t] = dr * dr + di * di;
  }
}
//! [complex_neighbour_diff_interleaved]
