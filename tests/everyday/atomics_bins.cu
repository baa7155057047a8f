// atomics_bins.cu - shared-memory histograms where some lanes of a warp hit one bin and the others
// spread: how many wavefronts an ATOMS request costs when 8 lanes share a word and 24 lanes have
// words of their own (distinct banks), and when the lanes form groups on several words.
//
// Exercises (blocks of 256 threads, 256 unsigned bins, 4 atomics per thread):
//   eight_on_one_inc: lanes 0-7 on bin 0, lanes 8-31 on 24 distinct banks (atomicAdd of 1u).
//   eight_on_one_add: the same bins, atomicAdd of a value read from the input (ATOMS.ADD).
//   four_groups:      lanes in 4 groups of 8, each group on one bin (4 words in 4 banks).
//   eight_same_bank:  lanes 0-7 on 8 different words of bank 0, the rest spread.
#include <cuda_runtime.h>

__device__ int spread_bin(int lane, int it) {
  return 8 + ((lane - 8) * 5 + it * 32) % 248;
}

__global__ void eight_on_one_inc(unsigned* out, const unsigned* in) {
  __shared__ unsigned hist[256];
  hist[threadIdx.x] = 0;
  __syncthreads();
  const int lane = threadIdx.x % 32;
  for (int it = 0; it < 4; ++it) atomicAdd(&hist[lane < 8 ? 0 : spread_bin(lane, it)], 1u);
  __syncthreads();
  out[blockIdx.x * 256 + threadIdx.x] = hist[threadIdx.x] + in[blockIdx.x] % 2;
}

__global__ void eight_on_one_add(unsigned* out, const unsigned* in) {
  __shared__ unsigned hist[256];
  hist[threadIdx.x] = 0;
  __syncthreads();
  const int lane = threadIdx.x % 32;
  const unsigned v = in[blockIdx.x * 256 + threadIdx.x] % 7u + 1u;
  for (int it = 0; it < 4; ++it) atomicAdd(&hist[lane < 8 ? 0 : spread_bin(lane, it)], v);
  __syncthreads();
  out[blockIdx.x * 256 + threadIdx.x] = hist[threadIdx.x];
}

__global__ void four_groups(unsigned* out, const unsigned* in) {
  __shared__ unsigned hist[256];
  hist[threadIdx.x] = 0;
  __syncthreads();
  const int lane = threadIdx.x % 32;
  for (int it = 0; it < 4; ++it) atomicAdd(&hist[(lane / 8) * 33 + it], 1u);
  __syncthreads();
  out[blockIdx.x * 256 + threadIdx.x] = hist[threadIdx.x] + in[blockIdx.x] % 2;
}

__global__ void eight_same_bank(unsigned* out, const unsigned* in) {
  __shared__ unsigned hist[256];
  hist[threadIdx.x] = 0;
  __syncthreads();
  const int lane = threadIdx.x % 32;
  for (int it = 0; it < 4; ++it) atomicAdd(&hist[lane < 8 ? lane * 32 : spread_bin(lane, it)], 1u);
  __syncthreads();
  out[blockIdx.x * 256 + threadIdx.x] = hist[threadIdx.x] + in[blockIdx.x] % 2;
}
