// Lesson 10 - shared-memory histograms: the one-table baseline of exercise 10 and a per-warp
// variant. `data` holds n bytes, four to a word (byte k of word w is byte 4w + k; bytes past n
// in the last word are not data). Block b counts bytes [262144 b, 262144 (b + 1)) into its own
// 256 bins: partial[256 b + v] = how many of them equal v (a later pass adds the blocks' rows).
//   build/bin/banksim profile lessons/10-histograms/histogram_shared.cu
//       --kernel histogram_one_table --grid 2 --block 512 --arg 512 --arg 70000 --arg 280000
//   build/bin/banksim profile lessons/10-histograms/histogram_shared.cu
//       --kernel bin_updates --block 32 --arg 32 --arg 32 --arg 4
constexpr int kBins = 256;
constexpr int kThreads = 512;
constexpr int kWarps = kThreads / 32;
constexpr int kBytesPerBlock = 262144;

//! [histogram_one_table]
__global__ void histogram_one_table(unsigned* partial, const unsigned* data, int n) {
  __shared__ unsigned hist[kBins];  // bin v: word v, bank v mod 32
  for (int v = threadIdx.x; v < kBins; v += kThreads) hist[v] = 0;
  __syncthreads();
  const int first = blockIdx.x * kBytesPerBlock;
  const int bytes = min(kBytesPerBlock, n - first);
  const unsigned* words = data + first / 4;
  for (int w = threadIdx.x; 4 * w < bytes; w += kThreads) {
    const unsigned word = words[w];
    const int valid = min(4, bytes - 4 * w);  // the last word may hold fewer bytes
    for (int k = 0; k < valid; ++k) {
      // +1 is ATOMS.POPC.INC for nvcc: lanes with one value hit one word, one wavefront;
      // lanes with values 32 apart hit one bank in different words: a bank conflict
      atomicAdd(&hist[(word >> (8 * k)) & 0xFF], 1u);
    }
  }
  __syncthreads();
  for (int v = threadIdx.x; v < kBins; v += kThreads) partial[blockIdx.x * kBins + v] = hist[v];
}
//! [histogram_one_table]

//! [histogram_per_warp]
// One table per warp: warps no longer update each other's counters, but the 32 lanes of a warp
// still meet in their own table exactly as in histogram_one_table.
__global__ void histogram_per_warp(unsigned* partial, const unsigned* data, int n) {
  __shared__ unsigned hist[kWarps][kBins];  // warp w, bin v: word 256 w + v, bank v mod 32
  for (int v = threadIdx.x; v < kBins; v += kThreads) {
    for (int x = 0; x < kWarps; ++x) hist[x][v] = 0;  // lane v: bank v mod 32
  }
  __syncthreads();
  const int warp = threadIdx.x / 32;
  const int first = blockIdx.x * kBytesPerBlock;
  const int bytes = min(kBytesPerBlock, n - first);
  const unsigned* words = data + first / 4;
  for (int w = threadIdx.x; 4 * w < bytes; w += kThreads) {
    const unsigned word = words[w];
    const int valid = min(4, bytes - 4 * w);
    for (int k = 0; k < valid; ++k) atomicAdd(&hist[warp][(word >> (8 * k)) & 0xFF], 1u);
  }
  __syncthreads();
  for (int v = threadIdx.x; v < kBins; v += kThreads) {
    unsigned total = 0;
    for (int x = 0; x < kWarps; ++x) total += hist[x][v];  // lane v: bank v mod 32
    partial[blockIdx.x * kBins + v] = total;
  }
}
//! [histogram_per_warp]

//! [bin_updates]
// Lane t adds 1 to bin (t * stride) mod 256, `rounds` times (ATOMS.POPC.INC): stride 0 puts the
// warp on one word, stride 1 on 32 words in 32 banks, stride 8 on 32 words in 4 banks (8-way),
// stride 32 on 8 words of bank 0 with 4 lanes each (8-way).
__global__ void bin_updates(unsigned* out, int stride, int rounds) {
  __shared__ unsigned hist[kBins];
  for (int v = threadIdx.x; v < kBins; v += blockDim.x) hist[v] = 0;
  __syncthreads();
  const unsigned bin = (threadIdx.x % 32) * stride % kBins;
  for (int r = 0; r < rounds; ++r) atomicAdd(&hist[bin], 1u);  // word bin, bank bin mod 32
  __syncthreads();
  if (threadIdx.x < 32) out[blockIdx.x * 32 + threadIdx.x] = hist[bin];
}
//! [bin_updates]

//! [bin_adds]
// bin_updates with an amount that is not the constant 1: nvcc emits ATOMS.ADD (every lane brings
// its own operand); Nsight Compute counts a wavefront per lane on one word (8 lanes: 8).
__global__ void bin_adds(unsigned* out, int stride, int rounds, unsigned amount) {
  __shared__ unsigned hist[kBins];
  for (int v = threadIdx.x; v < kBins; v += blockDim.x) hist[v] = 0;
  __syncthreads();
  const unsigned bin = (threadIdx.x % 32) * stride % kBins;
  for (int r = 0; r < rounds; ++r) atomicAdd(&hist[bin], amount);  // word bin, bank bin mod 32
  __syncthreads();
  if (threadIdx.x < 32) out[blockIdx.x * 32 + threadIdx.x] = hist[bin];
}
//! [bin_adds]
