// Lesson 10 - shared-memory histograms: the one-table baseline of exercise 10 and a per-warp
// variant. `data` holds n bytes, four to a word (byte k of word w is byte 4w + k; bytes past n
// in the last word are not data). Block b counts bytes [262144 b, 262144 (b + 1)) into its own
// 256 bins: partial[256 b + v] = how many of them equal v (a later pass adds the blocks' rows).
// Each thread loads two uint4 (32 bytes) before it counts them; the last block's tail goes word
// by word. bin_updates and bin_adds time one kind of warp request each.
//   build/bin/banksim profile lessons/10-histograms/histogram_shared.cu
//       --kernel histogram_one_table --grid 2 --block 512 --arg 512 --arg 70000 --arg 280000
//   build/bin/banksim profile lessons/10-histograms/histogram_shared.cu
//       --kernel bin_updates --block 32 --arg 32 --arg 32 --arg 4
constexpr int kBins = 256;
constexpr int kThreads = 512;
constexpr int kWarps = kThreads / 32;
constexpr int kBytesPerBlock = 262144;
constexpr int kLoads = 2;  // uint4 loads a thread keeps in flight before it counts

//! [histogram_one_table]
__global__ void histogram_one_table(unsigned* partial, const unsigned* data, int n) {
  __shared__ unsigned hist[kBins];  // bin v: word v, bank v mod 32
  for (int v = threadIdx.x; v < kBins; v += kThreads) hist[v] = 0;
  __syncthreads();
  const auto count = [&](unsigned v) {
    // +1 is ATOMS.POPC.INC for nvcc: lanes with one value hit one word, one wavefront;
    // lanes with values 32 apart hit one bank in different words: a bank conflict
    atomicAdd(&hist[v], 1u);
  };
  const auto count_word = [&](unsigned word) {
    for (int k = 0; k < 4; ++k) count((word >> (8 * k)) & 0xFF);
  };
  const int first = blockIdx.x * kBytesPerBlock;
  const int bytes = min(kBytesPerBlock, n - first);
  const unsigned* words = data + first / 4;
  const uint4* quads = reinterpret_cast<const uint4*>(words);  // 16-byte aligned: first % 16 == 0
  // Both loads are issued before the first count, so a thread has 32 bytes in flight.
  const int main_quads = bytes / 16 / (kLoads * kThreads) * (kLoads * kThreads);
  for (int q = threadIdx.x; q < main_quads; q += kLoads * kThreads) {
    const uint4 a = __ldg(&quads[q]);
    const uint4 b = __ldg(&quads[q + kThreads]);
    count_word(a.x);
    count_word(a.y);
    count_word(a.z);
    count_word(a.w);
    count_word(b.x);
    count_word(b.y);
    count_word(b.z);
    count_word(b.w);
  }
  // The tail (only the last block has one): whole words, then the bytes of a last partial word.
  for (int w = 4 * main_quads + threadIdx.x; w < bytes / 4; w += kThreads) count_word(words[w]);
  if (threadIdx.x == 0) {
    for (int i = bytes / 4 * 4; i < bytes; ++i) count((words[i / 4] >> (8 * (i % 4))) & 0xFF);
  }
  __syncthreads();
  for (int v = threadIdx.x; v < kBins; v += kThreads) partial[blockIdx.x * kBins + v] = hist[v];
}
//! [histogram_one_table]

//! [histogram_per_warp]
// One table per warp: warps no longer update each other's counters, but the 32 lanes of a warp
// still meet in their own table exactly as in histogram_one_table. The loads as above.
__global__ void histogram_per_warp(unsigned* partial, const unsigned* data, int n) {
  __shared__ unsigned hist[kWarps][kBins];  // warp w, bin v: word 256 w + v, bank v mod 32
  for (int v = threadIdx.x; v < kBins; v += kThreads) {
    for (int x = 0; x < kWarps; ++x) hist[x][v] = 0;  // lane v: bank v mod 32
  }
  __syncthreads();
  const int warp = threadIdx.x / 32;
  const auto count = [&](unsigned v) { atomicAdd(&hist[warp][v], 1u); };
  const auto count_word = [&](unsigned word) {
    for (int k = 0; k < 4; ++k) count((word >> (8 * k)) & 0xFF);
  };
  const int first = blockIdx.x * kBytesPerBlock;
  const int bytes = min(kBytesPerBlock, n - first);
  const unsigned* words = data + first / 4;
  const uint4* quads = reinterpret_cast<const uint4*>(words);
  const int main_quads = bytes / 16 / (kLoads * kThreads) * (kLoads * kThreads);
  for (int q = threadIdx.x; q < main_quads; q += kLoads * kThreads) {
    const uint4 a = __ldg(&quads[q]);
    const uint4 b = __ldg(&quads[q + kThreads]);
    count_word(a.x);
    count_word(a.y);
    count_word(a.z);
    count_word(a.w);
    count_word(b.x);
    count_word(b.y);
    count_word(b.z);
    count_word(b.w);
  }
  for (int w = 4 * main_quads + threadIdx.x; w < bytes / 4; w += kThreads) count_word(words[w]);
  if (threadIdx.x == 0) {
    for (int i = bytes / 4 * 4; i < bytes; ++i) count((words[i / 4] >> (8 * (i % 4))) & 0xFF);
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
