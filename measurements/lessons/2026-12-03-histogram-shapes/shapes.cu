// shapes.cu - exercise 10's histogram in several kernel shapes, each as the one-table baseline
// and as the per-lane layout of the solution, timed on the GPU: does the conflict-free layout
// pay once a thread keeps more than one 4-byte global load in flight?
//
// Self-contained (no repository header): 2^27 bytes drawn as the registry draws exercise 10's
// (registry/src/registry.cpp, byte_histogram(): mt19937_64, three bytes per draw, each byte 0
// when its low bit is set, else the next 8 bits: about half the bytes 0) and a second set in
// which every byte is a multiple of 32 (uniform over 0, 32, ..., 224: eight words of bank 0 in
// the one table, about 8 wavefronts a request). Each kernel is timed as gpu/harness.cuh times:
// CUDA events around one launch, the L2 flushed before each (a 256 MB memset), 2 warm-up
// launches, median of 15. Every output (each block's 256 bins) is checked against a CPU
// histogram.
//
//   nvcc $(course-registry nvcc-flags) -o shapes shapes.cu && ./shapes
//
// Prints one line per shape and data set: baseline ms, solution ms, speed-up, GB/s of input.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#define CHECK(call)                                                             \
  do {                                                                          \
    cudaError_t e_ = (call);                                                    \
    if (e_ != cudaSuccess) {                                                    \
      std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call, \
                   cudaGetErrorString(e_));                                     \
      std::exit(1);                                                             \
    }                                                                           \
  } while (0)

constexpr int kBins = 256;
constexpr int kWarp = 32;
constexpr long long kBytes = 1LL << 27;  // the input: 128 MiB
constexpr int kChunk = 16384;            // CPU check granularity: every block size is a multiple

// ---- The exercise's kernels, as they are: lessons/10-histograms/histogram_shared.cu's
// histogram_one_table and solutions/10-histograms/histogram256.cu's solution (512 threads,
// 256 KiB per block, one 4-byte load per thread and iteration).
namespace exercise {
constexpr int kThreads = 512;
constexpr int kBytesPerBlock = 262144;

__global__ void histogram_one_table(unsigned* partial, const unsigned* data, int n) {
  __shared__ unsigned hist[kBins];
  for (int v = threadIdx.x; v < kBins; v += kThreads) hist[v] = 0;
  __syncthreads();
  const int first = blockIdx.x * kBytesPerBlock;
  const int bytes = min(kBytesPerBlock, n - first);
  const unsigned* words = data + first / 4;
  for (int w = threadIdx.x; 4 * w < bytes; w += kThreads) {
    const unsigned word = words[w];
    const int valid = min(4, bytes - 4 * w);
    for (int k = 0; k < valid; ++k) atomicAdd(&hist[(word >> (8 * k)) & 0xFF], 1u);
  }
  __syncthreads();
  for (int v = threadIdx.x; v < kBins; v += kThreads) partial[blockIdx.x * kBins + v] = hist[v];
}

__global__ void histogram_per_lane(unsigned* partial, const unsigned* data, int n) {
  __shared__ unsigned hist[kBins][kWarp];
  for (int i = threadIdx.x; i < kBins * kWarp; i += kThreads) hist[i / kWarp][i % kWarp] = 0;
  __syncthreads();
  const int lane = threadIdx.x % kWarp;
  const int first = blockIdx.x * kBytesPerBlock;
  const int bytes = min(kBytesPerBlock, n - first);
  const unsigned* words = data + first / 4;
  for (int w = threadIdx.x; 4 * w < bytes; w += kThreads) {
    const unsigned word = words[w];
    const int valid = min(4, bytes - 4 * w);
    for (int k = 0; k < valid; ++k) atomicAdd(&hist[(word >> (8 * k)) & 0xFF][lane], 1u);
  }
  __syncthreads();
  for (int v = threadIdx.x; v < kBins; v += kThreads) {
    unsigned sum = 0;
    for (int k = v; k < v + kWarp; ++k) sum += hist[v][k % kWarp];
    partial[blockIdx.x * kBins + v] = sum;
  }
}
}  // namespace exercise

// ---- The shapes: the same two layouts, with kLoads global loads (4-byte words or 16-byte
// uint4) issued into registers before any of their bytes is counted, so that a thread has kLoads
// loads in flight; kThreads per block, kBytesPerBlock bytes per block (one row of partial each).
enum class Layout { kOneTable, kPerLane };

template <Layout L>
struct Counters;

template <>
struct Counters<Layout::kOneTable> {
  static constexpr int kWords = kBins;  // bin v: word v, bank v mod 32 (the data picks the bank)
  __device__ static void add(unsigned* h, unsigned v, int) { atomicAdd(&h[v], 1u); }
  __device__ static unsigned total(const unsigned* h, int v) { return h[v]; }
};

template <>
struct Counters<Layout::kPerLane> {
  static constexpr int kWords = kBins * kWarp;  // (bin v, lane l): word 32 v + l, bank l
  __device__ static void add(unsigned* h, unsigned v, int lane) {
    atomicAdd(&h[kWarp * v + lane], 1u);
  }
  __device__ static unsigned total(const unsigned* h, int v) {
    unsigned sum = 0;  // lane v reads bank k mod 32 at step k: one bank per lane
    for (int k = v; k < v + kWarp; ++k) sum += h[kWarp * v + k % kWarp];
    return sum;
  }
};

template <Layout L>
__device__ __forceinline__ void count_word(unsigned* h, unsigned word, int lane) {
#pragma unroll
  for (int k = 0; k < 4; ++k) Counters<L>::add(h, (word >> (8 * k)) & 0xFF, lane);
}

template <Layout L, bool kWide, int kLoads, int kThreads, int kBytesPerBlock>
__global__ void __launch_bounds__(kThreads)
    histogram(unsigned* partial, const unsigned* data, long long n) {
  using C = Counters<L>;
  __shared__ unsigned hist[C::kWords];
  for (int i = threadIdx.x; i < C::kWords; i += kThreads) hist[i] = 0;
  __syncthreads();
  const int lane = threadIdx.x % kWarp;
  const long long first = static_cast<long long>(blockIdx.x) * kBytesPerBlock;
  const int bytes = static_cast<int>(min(static_cast<long long>(kBytesPerBlock), n - first));
  const unsigned* words = data + first / 4;
  constexpr int kUnit = kWide ? 16 : 4;                  // bytes per load
  constexpr int kStep = kLoads * kThreads;               // loads per block and iteration
  const int main_units = bytes / kUnit / kStep * kStep;  // what the unrolled loop covers
  // kLoads loads per thread and iteration, all issued before the first atomic.
  for (int base = 0; base < main_units; base += kStep) {
    const int i = base + threadIdx.x;
    if constexpr (kWide) {
      const uint4* q = reinterpret_cast<const uint4*>(words);
      uint4 r[kLoads];
#pragma unroll
      for (int j = 0; j < kLoads; ++j) r[j] = __ldg(&q[i + j * kThreads]);
#pragma unroll
      for (int j = 0; j < kLoads; ++j) {
        count_word<L>(hist, r[j].x, lane);
        count_word<L>(hist, r[j].y, lane);
        count_word<L>(hist, r[j].z, lane);
        count_word<L>(hist, r[j].w, lane);
      }
    } else {
      unsigned r[kLoads];
#pragma unroll
      for (int j = 0; j < kLoads; ++j) r[j] = __ldg(&words[i + j * kThreads]);
#pragma unroll
      for (int j = 0; j < kLoads; ++j) count_word<L>(hist, r[j], lane);
    }
  }
  // What is left: whole words one at a time, then the last word's valid bytes.
  for (int w = main_units * (kUnit / 4) + threadIdx.x; w < bytes / 4; w += kThreads) {
    count_word<L>(hist, words[w], lane);
  }
  if (threadIdx.x == 0 && bytes % 4 != 0) {
    const unsigned word = words[bytes / 4];
    for (int k = 0; k < bytes % 4; ++k) Counters<L>::add(hist, (word >> (8 * k)) & 0xFF, lane);
  }
  __syncthreads();
  for (int v = threadIdx.x; v < kBins; v += kThreads)
    partial[blockIdx.x * kBins + v] = C::total(hist, v);
}

// ---- Host side.
struct Kernel {
  const void* fn;
  int threads;
  long long bytes_per_block;
  bool exercise_signature;  // (unsigned*, const unsigned*, int) rather than long long n
};

struct Shape {
  std::string name;
  Kernel base, sol;
};

template <bool kWide, int kLoads, int kThreads, int kBytesPerBlock>
Shape shape(const char* name) {
  return {name,
          {(const void*)histogram<Layout::kOneTable, kWide, kLoads, kThreads, kBytesPerBlock>,
           kThreads, kBytesPerBlock, false},
          {(const void*)histogram<Layout::kPerLane, kWide, kLoads, kThreads, kBytesPerBlock>,
           kThreads, kBytesPerBlock, false}};
}

// The registry's draw (registry/src/registry.cpp, byte_histogram()'s make_inputs), over all
// bytes; `bank0` maps every byte to a multiple of 32 instead.
std::vector<unsigned char> make_bytes(long long n, unsigned long long seed, bool bank0) {
  std::vector<unsigned char> bytes(static_cast<size_t>(n));
  std::mt19937_64 rng(seed);
  for (long long i = 0; i < n; i += 3) {
    const std::uint64_t r = rng();
    for (long long k = 0; k < 3 && i + k < n; ++k) {
      const std::uint64_t bits = r >> (9 * k);
      bytes[i + k] = bank0             ? static_cast<unsigned char>(32 * (bits & 7))
                     : (bits & 1) != 0 ? 0
                                       : static_cast<unsigned char>(bits >> 1);
    }
  }
  return bytes;
}

unsigned char* g_flush = nullptr;
constexpr size_t kFlushBytes = size_t{256} << 20;  // > the H200's 60 MB L2, as harness.cuh

void launch(const Kernel& k, unsigned* partial, const unsigned* data, long long n) {
  const unsigned grid = static_cast<unsigned>((n + k.bytes_per_block - 1) / k.bytes_per_block);
  int ni = static_cast<int>(n);
  void* args_ex[] = {&partial, &data, &ni};
  void* args[] = {&partial, &data, &n};
  CHECK(cudaLaunchKernel(k.fn, dim3(grid), dim3(k.threads), k.exercise_signature ? args_ex : args,
                         0, nullptr));
}

double median_ms(const Kernel& k, unsigned* partial, const unsigned* data, long long n) {
  static int round = 0;
  for (int i = 0; i < 2; ++i) launch(k, partial, data, n);
  CHECK(cudaDeviceSynchronize());
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  std::vector<float> t;
  for (int r = 0; r < 15; ++r) {
    CHECK(cudaMemsetAsync(g_flush, ++round & 0xff, kFlushBytes));
    CHECK(cudaEventRecord(a));
    launch(k, partial, data, n);
    CHECK(cudaEventRecord(b));
    CHECK(cudaEventSynchronize(b));
    CHECK(cudaGetLastError());
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms);
  }
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

// The kernel's rows against the CPU's 16 KiB chunk histograms, added up per block.
bool check(const Kernel& k, const unsigned* partial_dev, const std::vector<unsigned>& chunks,
           long long n, std::string* why) {
  const long long blocks = (n + k.bytes_per_block - 1) / k.bytes_per_block;
  std::vector<unsigned> got(static_cast<size_t>(blocks * kBins));
  CHECK(cudaMemcpy(got.data(), partial_dev, got.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));
  const long long per = k.bytes_per_block / kChunk;
  for (long long b = 0; b < blocks; ++b) {
    for (int v = 0; v < kBins; ++v) {
      unsigned want = 0;
      for (long long c = b * per; c < (b + 1) * per && c * kChunk < n; ++c)
        want += chunks[c * kBins + v];
      if (got[b * kBins + v] != want) {
        char buf[160];
        std::snprintf(buf, sizeof buf, "block %lld bin %d: %u, the CPU counts %u", b, v,
                      got[b * kBins + v], want);
        *why = buf;
        return false;
      }
    }
  }
  return true;
}

int main(int argc, char** argv) {
  const long long n = argc > 1 ? std::atoll(argv[1]) : kBytes;
  if (n < 1 || n > (1LL << 30)) {
    std::fprintf(stderr, "shapes.cu: n = %lld: expected 1 .. 2^30 bytes\n", n);
    return 2;
  }
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("GPU %s, %d SMs; n = %lld bytes; median of 15 after 2 warm-ups, L2 flushed\n",
              prop.name, prop.multiProcessorCount, n);
  const long long words = (n + 3) / 4;
  const long long padded = (words + 3) / 4 * 4;  // whole uint4s allocated (the tail is not read)
  unsigned *data = nullptr, *partial = nullptr;
  CHECK(cudaMalloc(&data, padded * 4));
  const long long max_rows = (n + 65535) / 65536;  // the smallest bytes per block below
  CHECK(cudaMalloc(&partial, max_rows * kBins * 4));
  CHECK(cudaMalloc(&g_flush, kFlushBytes));

  std::vector<Shape> shapes = {
      {"exercise: u32 x1, 512 thr, 256 KiB",
       {(const void*)exercise::histogram_one_table, 512, 262144, true},
       {(const void*)exercise::histogram_per_lane, 512, 262144, true}},
      shape<false, 1, 512, 262144>("u32 x1, 512 thr, 256 KiB"),
      shape<false, 4, 512, 262144>("u32 x4, 512 thr, 256 KiB"),
      shape<true, 1, 512, 262144>("u4  x1, 512 thr, 256 KiB"),
      shape<true, 2, 512, 262144>("u4  x2, 512 thr, 256 KiB"),
      shape<true, 4, 512, 262144>("u4  x4, 512 thr, 256 KiB"),
      shape<true, 2, 256, 262144>("u4  x2, 256 thr, 256 KiB"),
      shape<true, 2, 1024, 262144>("u4  x2, 1024 thr, 256 KiB"),
      shape<true, 2, 512, 65536>("u4  x2, 512 thr, 64 KiB"),
      shape<true, 2, 512, 1048576>("u4  x2, 512 thr, 1 MiB"),
      shape<true, 4, 1024, 131072>("u4  x4, 1024 thr, 128 KiB"),
  };
  if (n > INT32_MAX - 262144) shapes.erase(shapes.begin());  // the exercise's int n

  bool all_right = true;
  for (int set = 0; set < 2; ++set) {
    const bool bank0 = set == 1;
    const char* set_name = bank0 ? "bank0" : "skewed";
    std::vector<unsigned char> bytes = make_bytes(4 * words, 11, bank0);
    std::vector<unsigned> chunks(static_cast<size_t>((n + kChunk - 1) / kChunk * kBins), 0);
    for (long long i = 0; i < n; ++i) ++chunks[(i / kChunk) * kBins + bytes[i]];
    CHECK(cudaMemset(data, 0, padded * 4));
    CHECK(cudaMemcpy(data, bytes.data(), bytes.size(), cudaMemcpyHostToDevice));
    std::printf("\n%-8s %-28s %11s %11s %8s %9s %9s %7s\n", "bytes", "shape", "base ms", "sol ms",
                "speedup", "base GB/s", "sol GB/s", "blk/SM");
    for (const Shape& s : shapes) {
      double ms[2];
      std::string why[2];
      bool right[2];
      const Kernel* ks[2] = {&s.base, &s.sol};
      for (int j = 0; j < 2; ++j) {
        CHECK(cudaMemset(partial, 0xff, max_rows * kBins * 4));  // unwritten rows show
        ms[j] = median_ms(*ks[j], partial, data, n);
        right[j] = check(*ks[j], partial, chunks, n, &why[j]);
        all_right = all_right && right[j];
      }
      int occ = 0;
      CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, s.sol.fn, s.sol.threads, 0));
      std::printf("%-8s %-28s %11.4f %11.4f %7.3fx %9.0f %9.0f %7d%s%s\n", set_name, s.name.c_str(),
                  ms[0], ms[1], ms[0] / ms[1], n / ms[0] / 1e6, n / ms[1] / 1e6, occ,
                  right[0] ? "" : "  BASELINE WRONG", right[1] ? "" : "  SOLUTION WRONG");
      for (int j = 0; j < 2; ++j) {
        if (!right[j])
          std::printf("    %s: %s\n", j == 0 ? "baseline" : "solution", why[j].c_str());
      }
    }
  }
  std::printf("\n%s\n", all_right ? "every output right" : "SOME OUTPUTS WRONG");
  cudaFree(data);
  cudaFree(partial);
  cudaFree(g_flush);
  return all_right ? 0 : 1;
}
