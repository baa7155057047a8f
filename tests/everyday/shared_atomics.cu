// shared_atomics.cu - block-private histograms in shared memory, the classic pattern of
// histogram kernels: zero the bins, atomicAdd(&hist[bin], 1u) per item, __syncthreads, write the
// bins out (one thread per bin). Bins come from the thread and block indices, not from the data,
// so the bank pattern is fixed (kItems items per thread); the input only feeds one value per block
// written to sum[] (so that every kernel reads its buffer).
//
// Exercises (block of 256 threads, 256 unsigned bins):
//   hist_spread:  bin = (threadIdx.x * 7) % 64 + 64 i, i = 0..3: 32 distinct bins in 32 banks per
//                 warp request (conflict-free ATOMS).
//   hist_stride8: bin = (threadIdx.x * 8 + i) % 256: 32 distinct bins in 4 banks (8-way).
//   hist_one_bin: bin = blockIdx.x % 4: every lane of every warp on the same word.
// nvcc (sm_90): STS (zeroing), ATOMS.POPC.INC (atomicAdd of 1u), LDS (write-out), 4 bytes.
//
// Every warp executes every shared instruction with all 32 lanes active.

constexpr int kBins = 256;  // == blockDim.x
constexpr int kItems = 4;

// hist_out has kBins entries per block; in has blockDim.x floats per block, sum one per block.
__global__ void hist_spread(const float* __restrict__ in, unsigned* __restrict__ hist_out,
                            float* __restrict__ sum) {
  __shared__ unsigned hist[kBins];
  const int t = static_cast<int>(threadIdx.x);
  hist[t] = 0u;
  __syncthreads();
  for (int i = 0; i < kItems; ++i) {
    const int bin = (t * 7) % 64 + 64 * i;
    atomicAdd(&hist[bin], 1u);
  }
  __syncthreads();
  hist_out[blockIdx.x * kBins + t] = hist[t];
  if (t == 0) sum[blockIdx.x] = in[blockIdx.x * blockDim.x];
}

__global__ void hist_stride8(const float* __restrict__ in, unsigned* __restrict__ hist_out,
                             float* __restrict__ sum) {
  __shared__ unsigned hist[kBins];
  const int t = static_cast<int>(threadIdx.x);
  hist[t] = 0u;
  __syncthreads();
  for (int i = 0; i < kItems; ++i) {
    const int bin = (t * 8 + i) % kBins;
    atomicAdd(&hist[bin], 1u);
  }
  __syncthreads();
  hist_out[blockIdx.x * kBins + t] = hist[t];
  if (t == 0) sum[blockIdx.x] = in[blockIdx.x * blockDim.x];
}

__global__ void hist_one_bin(const float* __restrict__ in, unsigned* __restrict__ hist_out,
                             float* __restrict__ sum) {
  __shared__ unsigned hist[kBins];
  const int t = static_cast<int>(threadIdx.x);
  hist[t] = 0u;
  __syncthreads();
  const int bin = static_cast<int>(blockIdx.x % 4);
  for (int i = 0; i < kItems; ++i) atomicAdd(&hist[bin], 1u);
  __syncthreads();
  hist_out[blockIdx.x * kBins + t] = hist[t];
  if (t == 0) sum[blockIdx.x] = in[blockIdx.x * blockDim.x];
}
