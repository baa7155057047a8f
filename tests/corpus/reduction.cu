// Corpus: block-level tree reductions of 256 values (block 256), one sum per block.
constexpr int kBlock = 256;

// Interleaved addressing: at step s thread t works on index 2*s*t: lanes hit words 2s apart,
// a 2-, 4-, 8-, 16-way conflict as s grows.
__global__ void reduce_interleaved(float* out, const float* in) {
  __shared__ float sdata[kBlock];
  const unsigned t = threadIdx.x;
  sdata[t] = in[blockIdx.x * kBlock + t];
  __syncthreads();
  for (unsigned s = 1; s < kBlock; s *= 2) {
    const unsigned index = 2 * s * t;
    if (index < kBlock) sdata[index] += sdata[index + s];  // @interleaved
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = sdata[0];
}

// Sequential addressing: thread t adds t + s: consecutive lanes, consecutive words, no conflict.
__global__ void reduce_sequential(float* out, const float* in) {
  __shared__ float sdata[kBlock];
  const unsigned t = threadIdx.x;
  sdata[t] = in[blockIdx.x * kBlock + t];
  __syncthreads();
  for (unsigned s = kBlock / 2; s > 0; s >>= 1) {
    if (t < s) sdata[t] += sdata[t + s];  // @sequential
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = sdata[0];
}

// Warp-synchronous tail with shuffles: no shared memory after the first step.
__global__ void reduce_shuffle(float* out, const float* in) {
  __shared__ float warp_sums[kBlock / 32];
  const unsigned t = threadIdx.x;
  float v = in[blockIdx.x * kBlock + t];
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  if (t % 32 == 0) warp_sums[t / 32] = v;
  __syncthreads();
  if (t < 32) {
    float w = t < kBlock / 32 ? warp_sums[t] : 0.0f;
    for (int offset = 16; offset > 0; offset /= 2) w += __shfl_down_sync(0xffffffffu, w, offset);
    if (t == 0) out[blockIdx.x] = w;
  }
}
