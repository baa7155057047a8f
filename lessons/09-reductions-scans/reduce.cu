// Lesson 09 - tree reductions: interleaved against sequential addressing (the two first steps of
// NVIDIA's reduction sample, reduce1 and reduce2). Each block of 256 threads sums 256 floats of
// `in` into out[blockIdx.x]; the last block may hold fewer (zeros past the end).
//   build/bin/banksim profile lessons/09-reductions-scans/reduce.cu
//       --kernel reduce_interleaved --grid 4 --block 256 --arg 4 --arg 1000 --arg 1000
constexpr int kThreads = 256;
constexpr int kLogBanks = 5;  // 32 banks

//! [reduce_interleaved]
// Step s: thread t adds word 2st + s into word 2st. Neighbouring lanes are 2s words apart.
__global__ void reduce_interleaved(float* out, const float* in, int n) {
  __shared__ float partial[kThreads];
  const int t = threadIdx.x;
  const int i = blockIdx.x * kThreads + t;
  partial[t] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (int s = 1; s < kThreads; s *= 2) {
    const int index = 2 * s * t;
    // lane t: words 2st and 2st + s, stride 2s: gcd(2s, 32) lanes of a full warp per bank
    if (index < kThreads) partial[index] += partial[index + s];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = partial[0];
}
//! [reduce_interleaved]

//! [reduce_sequential]
// Step s: thread t < s adds word t + s into word t. Neighbouring lanes read neighbouring words.
__global__ void reduce_sequential(float* out, const float* in, int n) {
  __shared__ float partial[kThreads];
  const int t = threadIdx.x;
  const int i = blockIdx.x * kThreads + t;
  partial[t] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (int s = kThreads / 2; s > 0; s /= 2) {
    // lane t: words t and t + s, stride 1: 32 banks, 1 wavefront each
    if (t < s) partial[t] += partial[t + s];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = partial[0];
}
//! [reduce_sequential]

//! [reduce_interleaved_padded]
// Interleaved addressing kept, the data moved: word i of the tree lives at i + i/32, one pad word
// after every 32, so words 32 apart (one bank before) are one bank apart.
__device__ __forceinline__ int padded(int i) {
  return i + (i >> kLogBanks);
}

__global__ void reduce_interleaved_padded(float* out, const float* in, int n) {
  __shared__ float partial[kThreads + (kThreads >> kLogBanks)];
  const int t = threadIdx.x;
  const int i = blockIdx.x * kThreads + t;
  partial[padded(t)] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (int s = 1; s < kThreads; s *= 2) {
    const int index = 2 * s * t;
    if (index < kThreads) partial[padded(index)] += partial[padded(index + s)];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = partial[0];
}
//! [reduce_interleaved_padded]
