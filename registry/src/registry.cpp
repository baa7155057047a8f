// registry.cpp - the table of exercises and lesson demos (see course/registry.hpp).
// Over 600 lines on purpose: the course's one table of facts, one function per exercise and the
// demos; adding an exercise adds one function, and nothing else holds these facts.
//
// Thresholds. GPU mode times the kernels at gpu_timing_size against the exercise's reference (its
// baseline, or a ceiling: cudaMemcpy, cuBLAS); each H200 row is set with margin below the worst of
// three H200 runs (measurements/calibration/2026-12-01-h200-thresholds/README.md,
// scripts/gpu-measure.sh). CPU mode's speed gate is the cost model's ratio at sizes[0]
// (grader/src/cost_model.hpp), set to mirror the GPU gate: the reference's modelled ratio x (GPU
// threshold / GPU ratio measured).
#include "course/registry.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <set>
#include <utility>

namespace course {
namespace {

constexpr int kTile = 32;

/// A size as a double (the benchmarks' byte and flop counts).
double d(long long v) {
  return static_cast<double>(v);
}

unsigned ceil_div(long long a, long long b) {
  return static_cast<unsigned>((a + b - 1) / b);
}

template <typename T>
T* as(std::vector<unsigned char>& bytes) {
  return reinterpret_cast<T*>(bytes.data());
}
template <typename T>
const T* as(const std::vector<unsigned char>& bytes) {
  return reinterpret_cast<const T*>(bytes.data());
}

template <typename T>
void fill_uniform(std::vector<unsigned char>& bytes, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> d(-1.0, 1.0);
  T* p = as<T>(bytes);
  for (std::size_t i = 0; i < bytes.size() / sizeof(T); ++i) p[i] = static_cast<T>(d(rng));
}

/// out (cols_in x rows_in) = in^T, elements of `width` scalars of type T.
template <typename T>
void transpose_reference(const std::vector<unsigned char>& in, std::vector<unsigned char>& out,
                         long long rows_in, long long cols_in, int width) {
  const T* src = as<T>(in);
  T* dst = as<T>(out);
  for (long long r = 0; r < rows_in; ++r) {
    for (long long c = 0; c < cols_in; ++c) {
      for (int w = 0; w < width; ++w)
        dst[(c * rows_in + r) * width + w] = src[(r * cols_in + c) * width + w];
    }
  }
}

BufferSpec buffer(const char* name, bool output, Elem elem,
                  std::function<std::size_t(const Size&)> count) {
  BufferSpec b;
  b.name = name;
  b.output = output;
  b.elem = elem;
  b.count = std::move(count);
  return b;
}
ArgSpec buf(int index) {
  return ArgSpec{index, nullptr};
}
ArgSpec scalar(std::function<long long(const Size&)> f) {
  return ArgSpec{-1, std::move(f)};
}
Size n_size(long long n) {
  return Size{"n=" + std::to_string(n), n, 0, 0};
}
/// A size n uniform in [lo, hi].
std::function<Size(std::mt19937_64&)> random_n(long long lo, long long hi) {
  return [=](std::mt19937_64& rng) {
    return n_size(std::uniform_int_distribution<long long>(lo, hi)(rng));
  };
}

Size mnk_size(long long m, long long n, long long k) {
  if (m == n && n == k) return Size{"m=n=k=" + std::to_string(m), m, n, k};
  return Size{"m=" + std::to_string(m) + " n=" + std::to_string(n) + " k=" + std::to_string(k), n,
              m, k};
}
std::string no_precondition(const Size&) {
  return "";
}

/// A grid of tiles of tile_cols x tile_rows elements over an n x n matrix.
std::function<Launch(const Size&)> tiles(unsigned tile_cols, unsigned tile_rows, unsigned block_x,
                                         unsigned block_y) {
  return [=](const Size& s) {
    Launch l;
    l.grid[0] = ceil_div(s.n, tile_cols);
    l.grid[1] = ceil_div(s.n, tile_rows);
    l.block[0] = block_x;
    l.block[1] = block_y;
    return l;
  };
}

/// An n x n transpose (04, 06, 07): buffers out (written) and in of n*n elements of `width`
/// scalars of T, arguments (out, in, n), a grid of tiles, random inputs and the CPU reference.
template <typename T>
Workload square_transpose(int width, unsigned tile_cols, unsigned tile_rows, unsigned block_x,
                          unsigned block_y) {
  Workload w;
  const Elem elem = sizeof(T) == 8 ? Elem::kF64 : Elem::kF32;
  const auto count = [width](const Size& s) { return static_cast<std::size_t>(width * s.n * s.n); };
  w.buffers = {buffer("out", true, elem, count), buffer("in", false, elem, count)};
  for (BufferSpec& b : w.buffers) {
    b.row_length = [](const Size& s) { return static_cast<std::size_t>(s.n); };
    b.vector_width = width;
  }
  w.args = {buf(0), buf(1), scalar([](const Size& s) { return s.n; })};
  w.launch = tiles(tile_cols, tile_rows, block_x, block_y);
  w.make_inputs = [](const Size&, Buffers& b, std::mt19937_64& rng) { fill_uniform<T>(b[1], rng); };
  w.reference = [width](const Size& s, Buffers& b) {
    transpose_reference<T>(b[1], b[0], s.n, s.n, width);
  };
  w.precondition = [](const Size& s) { return s.n >= 1 ? "" : "n must be at least 1"; };
  w.rate = Rate::kDeviceBytes;
  w.work = [width](const Size& s) { return 2.0 * d(s.n) * d(s.n) * width * sizeof(T); };
  return w;
}

/// C = A * B^T (05, 08): buffers c (written, m x n), a (m x k) and b (n x k), arguments
/// (c, a, b, m, n, k), random inputs, the CPU reference in double. Size: n = columns of C (rows
/// of B), m = rows of C, k = the reduction length.
Workload gemm_abt() {
  Workload w;
  w.buffers = {buffer("c", true, Elem::kF32, [](const Size& s) { return s.m * s.n; }),
               buffer("a", false, Elem::kF32, [](const Size& s) { return s.m * s.k; }),
               buffer("b", false, Elem::kF32, [](const Size& s) { return s.n * s.k; })};
  w.buffers[0].row_length = [](const Size& s) { return static_cast<std::size_t>(s.n); };
  w.buffers[1].row_length =
      w.buffers[2].row_length = [](const Size& s) { return static_cast<std::size_t>(s.k); };
  w.args = {buf(0),
            buf(1),
            buf(2),
            scalar([](const Size& s) { return s.m; }),
            scalar([](const Size& s) { return s.n; }),
            scalar([](const Size& s) { return s.k; })};
  w.make_inputs = [](const Size&, Buffers& b, std::mt19937_64& rng) {
    fill_uniform<float>(b[1], rng);
    fill_uniform<float>(b[2], rng);
  };
  w.reference = [](const Size& s, Buffers& b) {
    const float* a = as<float>(b[1]);
    const float* bb = as<float>(b[2]);
    float* c = as<float>(b[0]);
    for (long long i = 0; i < s.m; ++i) {
      for (long long j = 0; j < s.n; ++j) {
        double acc = 0;
        for (long long kk = 0; kk < s.k; ++kk) acc += double{a[i * s.k + kk]} * bb[j * s.k + kk];
        c[i * s.n + j] = static_cast<float>(acc);
      }
    }
  };
  w.precondition = no_precondition;
  w.tolerance_abs = 1e-4;
  w.tolerance_rel = 1e-4;
  w.rate = Rate::kFlops;
  w.work = [](const Size& s) { return 2.0 * d(s.m) * d(s.n) * d(s.k); };
  return w;
}

ExerciseSpec ex01() {  // host C++, graded against the bank model on random requests
  ExerciseSpec e;
  e.id = "01";
  e.cpu_grading_seconds = 1;
  e.summary = "the wavefronts of a 4-byte request, in host C++";
  e.slug = "01-banks-and-words";
  e.title = "Banks and words: the wavefronts of a 4-byte request";
  e.kind = ExerciseSpec::Kind::kHost;
  e.file = "bank_math.cpp";
  e.kernel = "wavefronts_4byte";
  e.host_cases = 3000;
  e.points = Points{0, 100, 0, 0, 0, 0};  // the function is all there is to write
  e.hints = {
      "A request costs as many wavefronts as its busiest bank needs. For each bank, how many "
      "*different* words do the active lanes ask for?",
      "word = byte address / 4 and bank = word mod 32, so words a multiple of 32 apart (128 bytes, "
      "4 KiB, ...) share a bank. Lanes on the same word are served together (a broadcast); a lane "
      "with address -1 is inactive; a request with no active lane costs 0.",
      "Collect each bank's distinct words (sort the active lanes' words and count the distinct "
      "ones per bank, or keep up to 32 words per bank); the answer is the largest count.",
  };
  return e;
}

ExerciseSpec ex02() {  // the solution makes 16.5x fewer wavefronts than the baseline at n = 256
  ExerciseSpec e;
  e.id = "02";
  e.cpu_grading_seconds = 2;
  e.summary = "a conflict-free column read of a 32x32 tile";
  e.slug = "02-column-read";
  e.title = "The column read: transpose an n x 32 matrix through a tile";
  e.file = "transpose_rows.cu";
  e.kernel = "transpose_n_by_32";
  e.baseline = {"lessons/02-column-read/column_read.cu", "transpose_n_by_32_naive"};
  Workload& w = e.workload;
  w.buffers = {buffer("out", true, Elem::kF32, [](const Size& s) { return 32 * s.n; }),
               buffer("in", false, Elem::kF32, [](const Size& s) { return 32 * s.n; })};
  // in is n x 32, out = in^T is 32 x n.
  w.buffers[0].row_length = [](const Size& s) { return static_cast<std::size_t>(s.n); };
  w.buffers[1].row_length = [](const Size&) { return std::size_t{kTile}; };
  w.args = {buf(0), buf(1), scalar([](const Size& s) { return s.n; })};
  w.launch = [](const Size& s) {
    Launch l;
    l.grid[0] = ceil_div(s.n, kTile);
    l.block[0] = kTile;
    l.block[1] = kTile;
    return l;
  };
  w.make_inputs = [](const Size&, Buffers& b, std::mt19937_64& rng) {
    fill_uniform<float>(b[1], rng);
  };
  w.reference = [](const Size& s, Buffers& b) {
    transpose_reference<float>(b[1], b[0], s.n, 32, 1);
  };
  w.precondition = no_precondition;
  w.work = [](const Size& s) { return 2.0 * 32 * d(s.n) * 4; };
  e.sizes = {n_size(256), n_size(70), n_size(5)};
  e.random_size = random_n(1, 700);
  e.random_sizes = 2;
  e.gpu_timing_size = n_size(1 << 20);
  e.bench_size = n_size(1 << 21);
  e.thresholds.cpu_min_cost_ratio = 1.9;           // model 2.31x; H200 1.80x vs gate 1.5
  e.thresholds.max_store_sectors_per_ideal = 2.0;  // coalesced stores: 1.0x the ideal
  e.thresholds.reference = SpeedReference::kBaseline;
  e.thresholds.gpu = {{"NVIDIA H200", 1.5,
                       "measurements/calibration/2026-12-01-h200-thresholds: 1.801-1.806x "
                       "(baseline / solution, 3 runs)",
                       1.801}};
  e.conflict_hint =
      "a column of the tile lies in one bank: change the tile's row length so that consecutive "
      "rows start in different banks (lesson 04), or permute the columns per row (lesson 06)";
  e.hints = {
      "The tile is written along its rows and read down its columns. Which banks do the 32 lanes "
      "of a warp hit on the read?",
      "tile[tx][ty] is word 32 tx + ty, in bank (32 tx + ty) mod 32 = ty: the same bank for every "
      "lane of the warp, 32 different words: 32-way.",
      "Only the tile's declaration changes; the indexing stays. With rows of P words, tile[tx][ty] "
      "is word P tx + ty, in bank (P tx + ty) mod 32: choose the smallest P >= 32 for which that "
      "bank differs for every tx = 0..31 (write out P tx mod 32 for a few tx).",
  };
  return e;
}

ExerciseSpec ex03() {  // the solution makes 1.9x fewer wavefronts than the interleaved baseline
  constexpr long long kTaps = 32;
  ExerciseSpec e;
  e.id = "03";
  e.cpu_grading_seconds = 2;
  e.summary = "a complex moving average without 2-way conflicts";
  e.slug = "03-strides";
  e.title = "Strides: a moving average of complex numbers without 2-way conflicts";
  e.file = "complex_filter.cu";
  e.kernel = "complex_moving_average";
  e.baseline = {"lessons/03-strides/strides.cu", "complex_moving_average_interleaved"};
  Workload& w = e.workload;
  // out: the m = n - 31 averages of the real parts, then those of the imaginary parts.
  w.buffers = {buffer("out", true, Elem::kF32, [](const Size& s) { return 2 * (s.n - kTaps + 1); }),
               buffer("in", false, Elem::kF32, [](const Size& s) { return 2 * s.n; })};
  w.args = {buf(0), buf(1), scalar([](const Size& s) { return s.n; })};
  w.launch = [](const Size& s) {
    Launch l;
    l.grid[0] = ceil_div(s.n - kTaps + 1, 128);
    l.block[0] = 256;
    return l;
  };
  w.make_inputs = [](const Size&, Buffers& b, std::mt19937_64& rng) {
    fill_uniform<float>(b[1], rng);
  };
  w.reference = [](const Size& s, Buffers& b) {
    const float* z = as<float>(b[1]);
    float* out = as<float>(b[0]);
    const long long m = s.n - kTaps + 1;
    for (int part = 0; part < 2; ++part) {
      for (long long i = 0; i < m; ++i) {
        double sum = 0.0;
        for (long long j = 0; j < kTaps; ++j) sum += z[2 * (i + j) + part];
        out[part * m + i] = static_cast<float>(sum / kTaps);
      }
    }
  };
  w.precondition = [](const Size& s) {
    return s.n >= kTaps ? "" : "n must be at least 32 (one average of 32 numbers)";
  };
  w.tolerance_abs = 1e-6;
  w.tolerance_rel = 1e-5;
  w.work = [](const Size& s) { return 2.0 * d(s.n) * 4 + 2.0 * d(s.n - kTaps + 1) * 4.0; };
  e.sizes = {n_size(4127), n_size(160), n_size(32)};
  e.random_size = random_n(32, 9000);
  e.random_sizes = 2;
  e.gpu_timing_size = n_size((1 << 24) + 31);
  e.bench_size = n_size((1 << 26) + 31);
  e.thresholds.cpu_min_cost_ratio = 1.45;  // model 1.79x; H200 1.567x vs gate 1.3
  e.thresholds.reference = SpeedReference::kBaseline;
  e.thresholds.gpu = {{"NVIDIA H200", 1.3,
                       "measurements/calibration/2026-12-01-h200-thresholds: 1.566-1.567x", 1.566}};
  e.conflict_hint =
      "neighbouring lanes read words 2 apart (numbers interleaved, one part read at a time): "
      "stage the numbers so that the words one warp reads are consecutive";
  e.hints = {
      "Each warp reads 32 staged values per output. Which words does lane t read, and how far "
      "apart are neighbouring lanes?",
      "Interleaved, the part `part` of number i + j is word 2 (i + j) + part: neighbouring lanes "
      "read words 2 apart, so lanes t and t + 16 share a bank: gcd(2, 32) = 2-way on every read.",
      "Change only the staging layout, not the arithmetic: arrange the staged words so that, for "
      "a fixed part, number i + j sits one word after number i + j - 1. Then check the staging "
      "stores too: the lanes of one warp must write 32 different banks there as well (kStage is "
      "odd, which matters if the two parts share one array).",
  };
  return e;
}

ExerciseSpec ex04() {  // the solution makes 16.5x fewer wavefronts than tile[32][32]
  ExerciseSpec e;
  e.id = "04";
  e.cpu_grading_seconds = 3;
  e.summary = "the tiled matrix transpose";
  e.slug = "04-padding-transpose";
  e.title = "The padding fix: tiled matrix transpose";
  e.file = "transpose.cu";
  e.kernel = "transpose_tiled";
  e.baseline = {"lessons/04-padding-transpose/transpose_naive.cu", "transpose_tiled_naive"};
  e.workload = square_transpose<float>(1, kTile, kTile, kTile, 8);
  e.sizes = {n_size(512), n_size(70), n_size(33)};
  e.random_size = random_n(1, 300);
  e.random_sizes = 2;
  e.gpu_timing_size = n_size(4096);
  e.bench_size = n_size(8192);
  const std::string naive = "lessons/04-padding-transpose/transpose_naive.cu";
  const std::string fast = "lessons/04-padding-transpose/transpose_fast.cu";
  e.variants = {
      {"transpose_global (lesson 04)", {naive, "transpose_global"}, nullptr, true},
      {"transpose_swizzled (lesson 06)",
       {"lessons/06-xor-swizzle/transpose_swizzled.cu", "transpose_swizzled"},
       nullptr,
       true},
  };
  for (const auto& [tile, rows] : std::vector<std::pair<unsigned, unsigned>>{
           {32, 8}, {32, 16}, {32, 32}, {64, 4}, {64, 8}, {64, 16}}) {
    const std::string shape = std::to_string(tile) + ", " + std::to_string(rows);
    e.variants.push_back({"tuned<" + std::to_string(tile) + "," + std::to_string(rows) + ">",
                          {fast, "transpose_padded_tuned<" + shape + ">"},
                          tiles(tile, tile, tile, rows),
                          true});
  }
  e.thresholds.cpu_min_cost_ratio = 1.9;           // model 2.31x; H200 2.18x vs gate 1.8
  e.thresholds.max_store_sectors_per_ideal = 2.0;  // coalesced stores: 1.0x the ideal
  e.thresholds.reference = SpeedReference::kBaseline;
  e.thresholds.gpu = {{"NVIDIA H200", 1.8,
                       "measurements/calibration/2026-12-01-h200-thresholds: 2.173-2.188x", 2.173}};
  e.conflict_hint =
      "the tile's column read hits one bank: change the row length so that the 32 rows of a "
      "column start in 32 different banks (the pitch rule of this lesson)";
  e.hints = {
      "A tile is written along its rows and read along its columns. Which of the two accesses is "
      "the conflicting one?",
      "The read tile[threadIdx.x][threadIdx.y + j] is word 32 tx + ty + j, in bank (ty + j) mod 32 "
      "for all 32 lanes of a warp: 32-way.",
      "Only the declaration of the tile changes. With rows of P words the read is word "
      "P tx + ty + j: a stride-P access (lesson 03). Pick P so that gcd(P, 32) = 1 and no row is "
      "shorter than the 32 floats it holds.",
  };
  return e;
}

ExerciseSpec ex05() {  // the solution makes 16.0x fewer wavefronts than the unpadded B tile
  ExerciseSpec e;
  e.id = "05";
  e.cpu_grading_seconds = 4;
  e.summary = "C = A B^T through shared memory";
  e.slug = "05-gemm-tile";
  e.title = "GEMM tiles: C = A * B^T through shared memory";
  e.file = "gemm_abt.cu";
  e.kernel = "gemm_abt";
  e.baseline = {"lessons/05-gemm-tile/gemm_naive.cu", "gemm_abt_naive"};
  e.workload = gemm_abt();
  e.nvcc_widths_expected = true;  // as[ty][k..k+3] -> LDS.128, bs[tx][k..k+1] -> LDS.64
  e.workload.launch = [](const Size& s) {
    Launch l;
    l.grid[0] = ceil_div(s.n, kTile);
    l.grid[1] = ceil_div(s.m, kTile);
    l.block[0] = l.block[1] = kTile;
    return l;
  };
  e.sizes = {mnk_size(128, 128, 128), mnk_size(40, 36, 70), mnk_size(1, 33, 5)};
  e.random_size = [](std::mt19937_64& rng) {
    std::uniform_int_distribution<long long> d(1, 140);
    const long long m = d(rng), n = d(rng), k = d(rng);
    return mnk_size(m, n, k);
  };
  e.random_sizes = 2;
  e.gpu_timing_size = mnk_size(2048, 2048, 2048);
  e.bench_size = mnk_size(4096, 4096, 4096);
  // The H200 gate asks 3.6 of the reference's 5.12-5.18x (70%): padding both tiles by one float
  // (honest, conflict-free; A's padded rows lose the LDS.128 broadcast) runs 4.07x there, which a
  // gate of 4.0 (4.038 calibrated) passed by under 2%; loading B uncoalesced to dodge the pad
  // runs 3.25x and must fail (tests/students/05). With nvcc's widths (LDS.128 broadcasts of A,
  // 16-byte conflicting reads of the baseline's B) the model gives the reference 4.87x:
  // 4.87 x 3.6 / 5.12 = 3.42 (both tiles padded 3.81x, B uncoalesced 2.62x). With clang's 4-byte
  // reads the model says 14.42x: 14.42 x 3.6 / 5.12 = 10.1 (B uncoalesced 8.64x).
  e.thresholds.cpu_min_cost_ratio = 3.4;
  e.thresholds.cpu_min_cost_ratio_clang = 10.1;
  e.thresholds.max_load_requests_vs_baseline = 2.0;  // A and B staged: 1.0x the baseline
  e.thresholds.reference = SpeedReference::kBaseline;
  e.thresholds.gpu = {{"NVIDIA H200", 3.6,
                       "measurements/calibration/2026-12-01-h200-thresholds: 5.120-5.125x", 5.12}};
  e.conflict_hint =
      "the B tile is read down a column (one bank for the whole warp): give its rows a length "
      "that spreads a column over the 32 banks; A's broadcast read needs no change";
  e.hints = {
      "In the inner loop the lanes of a warp share one row of A but each reads its own row of B's "
      "tile. What does that do to B's banks?",
      "The B read is word 32 tx + k: bank k for every lane, 32-way. The A read is the same word "
      "for the whole warp: a broadcast, which costs nothing extra.",
      "Change only the declaration of B's tile: with rows of P words lane tx reads word P tx + k, "
      "so the 32 lanes need P tx mod 32 to be distinct. A's tile and every index stay as they "
      "are.",
  };
  return e;
}

ExerciseSpec ex06() {  // the solution makes 4.5x fewer wavefronts than the unswizzled tile
  ExerciseSpec e;
  e.id = "06";
  e.cpu_grading_seconds = 2;
  e.summary = "a float4 transpose with a swizzled tile";
  e.slug = "06-xor-swizzle";
  e.title = "XOR swizzle: transpose a float4 matrix with 16-byte accesses";
  e.file = "transpose_float4.cu";
  e.kernel = "transpose_float4";
  e.baseline = {"lessons/06-xor-swizzle/transpose_float4_naive.cu", "transpose_float4_naive"};
  e.workload = square_transpose<float>(4, 8, 32, 8, 32);  // tiles of 32 rows x 8 float4
  e.sizes = {n_size(256), n_size(70), n_size(9)};
  e.random_size = random_n(1, 140);
  e.random_sizes = 2;
  e.gpu_timing_size = n_size(4096);
  e.bench_size = n_size(4096);
  e.thresholds.cpu_min_cost_ratio =
      1.08;  // model 1.14x; H200: the gate asks 0.84/0.887 of the solution's speed
  e.thresholds.max_store_sectors_per_ideal = 2.0;  // coalesced stores: 1.0x the ideal
  e.thresholds.reference = SpeedReference::kMemcpy;
  e.thresholds.gpu = {
      {"NVIDIA H200", 0.84,
       "measurements/calibration/2026-12-01-h200-thresholds: solution 88.6-88.7% of cudaMemcpy, "
       "baseline 79.3-79.9%",
       0.886}};
  e.conflict_hint =
      "the 8 lanes of a phase read one column of 16-byte chunks, all in the same 4 banks: "
      "permute each row's chunks by a function of the row, the same on the store and the load";
  e.hints = {
      "A 16-byte request is served in 4 phases of 8 lanes. Count the distinct banks one phase "
      "touches when it reads a column of the tile.",
      "A row of 8 float4 is 32 words, so element (r, c) starts at bank 4c whatever r is: 8 lanes "
      "reading rows r..r+7 of column c hit banks 4c..4c+3 eight times: 8-way in every phase.",
      "Keep the tile 8 chunks wide and put element (r, c) at chunk f(r, c) of row r, where for a "
      "fixed c the 8 rows of a phase give 8 different f, and for a fixed r f is a permutation of "
      "0..7 (XOR with a number below 8 is one). Apply the same f on the store and on the load.",
  };
  return e;
}

ExerciseSpec ex07() {  // the solution makes 8.5x fewer wavefronts than double tile[32][32]
  ExerciseSpec e;
  e.id = "07";
  e.cpu_grading_seconds = 3;
  e.summary = "a double-precision transpose";
  e.slug = "07-wide-accesses";
  e.title = "Wide accesses: transpose a matrix of doubles";
  e.file = "transpose_double.cu";
  e.kernel = "transpose_double";
  e.baseline = {"lessons/07-wide-accesses/wide.cu", "transpose_double_naive"};
  e.workload = square_transpose<double>(1, kTile, kTile, kTile, 8);
  e.sizes = {n_size(256), n_size(70), n_size(33)};
  e.random_size = random_n(1, 200);
  e.random_sizes = 2;
  e.gpu_timing_size = n_size(4096);
  e.bench_size = n_size(8192);
  e.thresholds.cpu_min_cost_ratio = 1.23;          // model 1.37x; H200 1.333x vs gate 1.2
  e.thresholds.max_store_sectors_per_ideal = 2.0;  // coalesced stores: 1.0x the ideal
  e.thresholds.reference = SpeedReference::kBaseline;
  e.thresholds.gpu = {{"NVIDIA H200", 1.2,
                       "measurements/calibration/2026-12-01-h200-thresholds: 1.332-1.334x", 1.332}};
  e.conflict_hint =
      "a half-warp's column read of doubles hits the same two banks: change the row length so "
      "that 16 consecutive rows start on 16 different bank pairs";
  e.hints = {
      "8-byte requests are served in 2 phases of 16 lanes. Count what one phase of a column read "
      "touches.",
      "A row of 32 doubles is 64 words: element (r, c) is words 64 r + 2c and 2c + 1, banks 2c and "
      "2c + 1 for every row. The 16 lanes of a phase read one column: 16 words in the same two "
      "banks, 16-way.",
      "Only the declaration changes. With rows of P doubles row r starts 2 P r words in: choose "
      "the row length so that 16 consecutive rows start on 16 different pairs of banks (work out "
      "2 P r mod 32 for r = 0..15).",
  };
  return e;
}

ExerciseSpec ex08() {  // stretch: the solution makes 1.08x fewer wavefronts (only stores conflict)
  ExerciseSpec e;
  e.id = "08";
  e.cpu_grading_seconds = 2;
  e.summary = "a GEMM at 77% of cuBLAS with conflict-free 16-byte accesses";
  e.slug = "08-gemm-register-blocked";
  e.title = "Stretch: a register-blocked GEMM with 16-byte shared accesses";
  e.file = "gemm_fast.cu";
  e.kernel = "gemm_abt_register_blocked";
  e.baseline = {"lessons/08-gemm-register-blocked/gemm_unpadded.cu",
                "gemm_abt_register_blocked_unpadded"};
  e.workload = gemm_abt();
  e.workload.launch = [](const Size& s) {
    Launch l;
    l.grid[0] = ceil_div(s.n, 128);
    l.grid[1] = ceil_div(s.m, 128);
    l.block[0] = 256;
    return l;
  };
  // The kernels check the same at run time (COURSE_EXPECT in the .cu files).
  e.workload.precondition = [](const Size& s) {
    return s.m % 128 == 0 && s.n % 128 == 0 && s.k % 8 == 0 && s.m > 0 && s.n > 0 && s.k > 0
               ? ""
               : "m and n must be positive multiples of 128, k a positive multiple of 8";
  };
  e.sizes = {mnk_size(128, 128, 64), mnk_size(256, 128, 40), mnk_size(128, 384, 8)};
  e.random_size = [](std::mt19937_64& rng) {
    std::uniform_int_distribution<long long> blocks(1, 3), ks(1, 8);
    const long long m = 128 * blocks(rng), n = 128 * blocks(rng), k = 8 * ks(rng);
    return mnk_size(m, n, k);
  };
  e.random_sizes = 1;
  e.gpu_timing_size = mnk_size(4096, 4096, 4096);
  e.bench_size = e.gpu_timing_size;
  // Model 1.04x; on the H200 the gate asks 0.5 / 0.768 of the solution's speed, which the
  // baseline reaches too.
  e.thresholds.cpu_min_cost_ratio = 0.68;
  // The conflicting baseline the skeleton hands over (its TODO lines deleted) reaches this speed
  // gate: it must keep at most 10 points, and a conflict-free kernel below the gate 70-90, so
  // speed is worth 10 and uses_shared nothing (it stays the precondition of conflicts and speed).
  e.points = Points{0, 0, 0, 90, 10, 0};
  e.thresholds.max_load_requests_vs_baseline = 2.0;  // A and B staged: 1.0x the baseline
  e.thresholds.reference = SpeedReference::kSgemm;
  e.thresholds.gpu = {
      {"NVIDIA H200", 0.5,
       "measurements/calibration/2026-12-01-h200-thresholds: solution 76.8-76.9% of cuBLAS, "
       "baseline 75.4-75.6%",
       0.768}};
  e.conflict_hint =
      "the transposing stores are 2-way (odd and even lanes on one bank): change the tiles' row "
      "length so the odd lanes' rows start 16 banks over, keeping every row 16-byte aligned";
  e.hints = {
      "The float4 loads of the inner loop are conflict-free. Look at the stores that scatter each "
      "float4 of A and B into four k-rows of the tiles.",
      "Lane t stores into row 4 (t mod 2) + q, column t / 2. With a pitch of 128 floats the row "
      "term vanishes mod 32: lanes t and t XOR 1 hit the same bank with different words, 2-way.",
      "Only the two declarations change. With rows of P floats, lane t's store is word "
      "P (4 (t mod 2) + q) + t / 2: find the P >= 128 for which 4 P mod 32 = 16 (the odd lanes "
      "move 16 banks over) while P stays a multiple of 4 (16-byte aligned rows for the float4 "
      "loads). A pad of one float breaks the alignment.",
  };
  return e;
}

// Exercises 09 (reductions and scans) and 10 (histograms): the int workloads below, then the
// two entries.

/// Exercise 09's data: n ints in [0, 99] (the sums are never -1, the grader's poison pattern);
/// out[i] = the exclusive sum of i's segment of 1024.
Workload segmented_scan() {
  constexpr long long kSegment = 1024;
  Workload w;
  w.buffers = {buffer("out", true, Elem::kI32, [](const Size& s) { return s.n; }),
               buffer("in", false, Elem::kI32, [](const Size& s) { return s.n; })};
  w.args = {buf(0), buf(1), scalar([](const Size& s) { return s.n; })};
  w.launch = [](const Size& s) {
    Launch l;
    l.grid[0] = ceil_div(s.n, kSegment);
    l.block[0] = kSegment / 2;
    return l;
  };
  w.make_inputs = [](const Size& s, Buffers& b, std::mt19937_64& rng) {
    std::uniform_int_distribution<std::int32_t> d(0, 99);
    auto* in = as<std::int32_t>(b[1]);
    for (long long i = 0; i < s.n; ++i) in[i] = d(rng);
  };
  w.reference = [](const Size& s, Buffers& b) {
    const auto* in = as<std::int32_t>(b[1]);
    auto* out = as<std::int32_t>(b[0]);
    std::int32_t sum = 0;
    for (long long i = 0; i < s.n; ++i) {
      if (i % kSegment == 0) sum = 0;
      out[i] = sum;
      sum += in[i];
    }
  };
  w.precondition = [](const Size& s) {
    return s.n >= 1 && s.n < (1LL << 31) - kSegment ? "" : "n must be in 1 .. 2^31 - 1025";
  };
  w.work = [](const Size& s) { return 2.0 * d(s.n) * 4; };
  return w;
}

/// Exercise 10's data: the n pixels of a posterised grey image, one byte each, packed four to a
/// word: 16 levels kept in a byte's top 4 bits (level k is the byte 16 k), a quarter of the
/// pixels black background (0), the others uniform over the 16 levels. Every byte is a multiple
/// of 16: in one table of 256 counters all of them fall in banks 0 and 16, 8 words each. Block
/// b's 256 bins count bytes [262144 b, 262144 (b + 1)).
Workload byte_histogram() {
  constexpr long long kBytesPerBlock = 262144;
  constexpr long long kBins = 256;
  Workload w;
  const auto blocks = [](const Size& s) { return (s.n + kBytesPerBlock - 1) / kBytesPerBlock; };
  w.buffers = {
      buffer("partial", true, Elem::kI32, [=](const Size& s) { return kBins * blocks(s); }),
      buffer("data", false, Elem::kI32, [](const Size& s) { return (s.n + 3) / 4; })};
  w.buffers[0].row_length = [](const Size&) { return static_cast<std::size_t>(kBins); };
  w.args = {buf(0), buf(1), scalar([](const Size& s) { return s.n; })};
  w.launch = [=](const Size& s) {
    Launch l;
    l.grid[0] = static_cast<unsigned>(blocks(s));
    l.block[0] = 512;
    return l;
  };
  w.make_inputs = [](const Size& s, Buffers& b, std::mt19937_64& rng) {
    // Every byte of the last word is drawn, those past n too: a kernel that counts them is wrong.
    auto* bytes = b[1].data();
    for (std::size_t i = 0; i < b[1].size(); i += 10) {
      const std::uint64_t r = rng();  // 10 pixels per draw: 2 background bits and 4 level bits each
      for (std::size_t k = 0; k < 10 && i + k < b[1].size(); ++k) {
        const std::uint64_t bits = r >> (6 * k);
        bytes[i + k] = (bits & 3) == 0 ? 0 : static_cast<unsigned char>(16 * ((bits >> 2) & 15));
      }
    }
    (void)s;
  };
  w.reference = [=](const Size& s, Buffers& b) {
    const unsigned char* bytes = b[1].data();
    auto* partial = as<std::int32_t>(b[0]);
    std::fill(partial, partial + kBins * blocks(s), 0);
    for (long long i = 0; i < s.n; ++i) ++partial[(i / kBytesPerBlock) * kBins + bytes[i]];
  };
  w.precondition = [](const Size& s) {
    return s.n >= 1 && s.n <= (1LL << 30) ? "" : "n must be in 1 .. 2^30";
  };
  w.work = [=](const Size& s) { return d(s.n) + 4.0 * d(kBins * blocks(s)); };
  return w;
}

ExerciseSpec ex09() {  // the solution makes 3.7x fewer wavefronts than the Blelloch baseline
  ExerciseSpec e;
  e.id = "09";
  e.summary = "a conflict-free block-wide exclusive scan";
  e.slug = "09-reductions-scans";
  e.title = "Reductions and scans: a conflict-free block-wide exclusive scan";
  e.file = "scan_blocks.cu";
  e.kernel = "scan_blocks";
  e.baseline = {"lessons/09-reductions-scans/scan_blelloch.cu", "scan_blocks_blelloch"};
  e.workload = segmented_scan();
  e.nvcc_widths_expected = true;  // the unrolled tree's first level: two words in one LDS.64
  e.sizes = {n_size(4500), n_size(1000), n_size(7)};
  e.random_size = random_n(1, 6000);
  e.random_sizes = 2;
  e.gpu_timing_size = n_size((1 << 24) + 123);
  e.bench_size = e.gpu_timing_size;
  // A scan by warp shuffles keeps only the warps' totals in shared memory (a few requests per
  // block against the tree's hundreds) and is an honest fix: the anti-bypass floor is low, and
  // a kernel with no shared access at all still fails it.
  e.thresholds.min_shared_fraction = 0.005;
  // The mirror of the GPU gate would be 2.57 (model) x 1.3 / 1.705 (H200) = 1.96, but the model
  // undervalues a scan by shuffles (1.52x modelled, 3.14x on the H200) and overvalues the
  // conflicting tree's padding (the solution 2.57x, 1.705x): 1.4 gives every scan of the corpus
  // the H200's verdict (Hillis-Steele: 1.22x modelled, 1.052x measured, fails both; the pad
  // every 16 words 1.74x, passes both).
  e.thresholds.cpu_min_cost_ratio = 1.4;
  e.thresholds.reference = SpeedReference::kBaseline;
  e.thresholds.gpu = {
      {"NVIDIA H200", 1.3,
       "measurements/lessons/2026-12-03-reductions-histograms: 1.705x (0.1623 ms vs 0.0951 ms, one "
       "run); the corpus's XOR swizzle 1.446x, Hillis-Steele 1.052x",
       1.705}};
  e.conflict_hint =
      "at distance d the tree's lanes touch words 2d apart, min(2d, 32) to a bank: move element "
      "i so that every run of 32 words starts one bank further on (slot(i)), or scan within "
      "warps by shuffles";
  e.hints = {
      "Write down which words the 32 lanes of one warp touch at distance d = 1, 2, 4, ... of the "
      "up-sweep, and in which banks they lie.",
      "At distance d lane t touches word 2d(t + 1) - 1 (and 2d(t + 1) - 1 - d): a stride of 2d "
      "words, so min(2d, 32) lanes share a bank (gcd rule, lesson 03). Past d = 16 the active "
      "lanes are fewer but still all in one bank.",
      "Leave the tree alone and change where element i is stored: skip one word after every 32 "
      "(the shared array grows by kSegment / 32 words), so that words 32 apart no longer share "
      "a bank. Check d = 1, 4 and 16 by hand. A scan by warp shuffles is the other way out.",
  };
  return e;
}

ExerciseSpec ex10() {  // the solution makes 7x fewer atomic wavefronts on the posterised image
  ExerciseSpec e;
  e.id = "10";
  e.summary = "a 256-bin histogram of a posterised image";
  e.slug = "10-histograms";
  e.title = "Histograms: per-lane counters for a posterised image";
  e.file = "histogram256.cu";
  e.kernel = "histogram256";
  e.baseline = {"lessons/10-histograms/histogram_shared.cu", "histogram_one_table"};
  e.workload = byte_histogram();
  // 3 whole blocks and a last one of 20483 bytes (the two-uint4 loop, 1024 whole words, 3 bytes);
  // 70001: one block, the loop then 1116 words and 1 byte; 6: one word and 2 bytes.
  e.sizes = {n_size(3 * 262144 + 20483), n_size(70001), n_size(6)};
  e.random_size = random_n(1, 600000);
  e.random_sizes = 2;
  e.gpu_timing_size = n_size((1 << 27) + 3);
  e.bench_size = e.gpu_timing_size;
  e.variants = {{"histogram_per_warp (lesson 10)",
                 {"lessons/10-histograms/histogram_shared.cu", "histogram_per_warp"},
                 nullptr,
                 false}};
  // The kernel's shape is the one measured where the layout pays: two 16-byte loads per thread
  // before counting, 512 threads, 256 KiB per block. This data makes 7.03 wavefronts per update
  // in the one table (banksim at n = 70001; Nsight Compute at sizes[0]: 180000 for 25219
  // requests). On the H200 the solution ran 2.860x the baseline at 2^27 + 3 bytes (0.0445 vs
  // 0.1273 ms, median of 15), the corpus's conflict-free merges 2.708x (shuffle) and 2.914x
  // (XOR), the per-warp tables 1.013x. The gate asks 1.6x: 1.6 / 2.860 = 0.56 of the
  // reference's ratio (the calibration asks at least half), and below the shapes page's worst
  // shape (2.45x at 1 MiB per block). The CPU gate mirrors it: the model's 3.24x for the
  // solution x 1.6 / 2.860 = 1.81, rounded down to 1.8 (padded_copies, 2.65x modelled and 2.719x
  // on the H200, passes both; the per-warp tables, 1.00x, fail both).
  e.thresholds.cpu_min_cost_ratio = 1.8;
  e.thresholds.reference = SpeedReference::kBaseline;
  e.thresholds.gpu = {
      {"NVIDIA H200", 1.6,
       "measurements/lessons/2026-12-03-histogram-exercise: 2.860x (0.1273 ms vs 0.0445 ms, "
       "median of 15, one run); in this shape on bytes in one bank 2.97-3.17x "
       "(measurements/lessons/2026-12-03-histogram-shapes)",
       2.86}};
  e.conflict_hint =
      "lanes whose bytes differ by a multiple of 32 update different words of one bank (every "
      "byte of this image is a multiple of 16: banks 0 and 16): give every lane counters of its "
      "own, laid out so that lane l's counters all lie in bank l";
  e.hints = {
      "An atomicAdd on shared memory is a warp request like a store. Which bank does the update "
      "of value v touch, and what decides it: the lane or the data?",
      "hist[v] is word v, bank v mod 32: two lanes with values 32 apart meet in one bank, two "
      "words, two wavefronts (the H200 takes twice as long, too); two lanes with the same value "
      "meet in one word, one wavefront. Which of the two happens depends on the data, which you "
      "do not choose: here every byte is 16 k, so the one table uses two banks of 32.",
      "Give each lane of a warp its own copy of the 256 counters (256 x 32 words, shared by the "
      "warps of the block) and interleave the copies so that counter (v, lane) lies in bank "
      "lane. Then the merge: the 32 copies of one bin must be summed without 32 lanes reading "
      "one bank (work out the bank of each lane's read before you write it).",
  };
  return e;
}

// ---- Exercise 11: tiles for tensor cores ---------------------------------------------------

/// Exercise 11's inputs: multiples of 1/8 in [-1, 1], which half holds exactly, so every product
/// and partial sum of the tensor cores' float accumulation is exact: the GPU, banksim and the
/// reference agree to the bit in any summation order (up to k = 2^18).
void fill_eighths(std::vector<unsigned char>& bytes, std::mt19937_64& rng) {
  std::uniform_int_distribution<int> d(-8, 8);
  float* p = as<float>(bytes);
  for (std::size_t i = 0; i < bytes.size() / sizeof(float); ++i)
    p[i] = static_cast<float>(d(rng)) / 8.0f;
}

ExerciseSpec ex11() {  // the solution makes 4.5x fewer shared wavefronts than the baseline
  ExerciseSpec e;
  e.id = "11";
  e.summary = "a WMMA GEMM whose half tiles feed the tensor cores without conflicts";
  e.slug = "11-tensor-core-tiles";
  e.title = "Tiles for tensor cores: stage half tiles for wmma::load_matrix_sync";
  e.file = "gemm_wmma.cu";
  e.kernel = "gemm_wmma";
  e.baseline = {"lessons/11-tensor-core-tiles/gemm_wmma_rowmajor.cu", "gemm_wmma_rowmajor"};
  e.workload = gemm_abt();
  e.workload.make_inputs = [](const Size&, Buffers& b, std::mt19937_64& rng) {
    fill_eighths(b[1], rng);
    fill_eighths(b[2], rng);
  };
  e.workload.launch = [](const Size& s) {
    Launch l;
    l.grid[0] = ceil_div(s.n, 64);
    l.grid[1] = ceil_div(s.m, 64);
    l.block[0] = 128;
    return l;
  };
  // The kernels check the same at run time (COURSE_EXPECT in the .cu files).
  e.workload.precondition = [](const Size& s) {
    return s.m % 64 == 0 && s.n % 64 == 0 && s.k % 64 == 0 && s.m > 0 && s.n > 0 && s.k > 0
               ? ""
               : "m, n and k must be positive multiples of 64";
  };
  e.sizes = {mnk_size(128, 128, 128), mnk_size(64, 192, 128), mnk_size(192, 64, 64)};
  e.random_size = [](std::mt19937_64& rng) {
    std::uniform_int_distribution<long long> blocks(1, 3);
    return mnk_size(64 * blocks(rng), 64 * blocks(rng), 64 * blocks(rng));
  };
  e.random_sizes = 1;
  e.gpu_timing_size = mnk_size(4096, 4096, 4096);
  e.bench_size = e.gpu_timing_size;
  // Model 1.24x: the gate asks the model for a fix 5% cheaper than the baseline. On the H200 the
  // gate asks 1.8 of the measured 2.59-2.61x (70%): the honest alternatives of the student
  // corpus ran 2.25-2.74x and tiles whose loads stay 2-way 2.07-2.14x, which the conflicts gate
  // fails; a gate near 2.2 sat within 2% of an honest kernel (staging by half2, 2.25x), and the
  // H200's calibrated row moved it above that kernel (measurements/calibration/).
  e.thresholds.cpu_min_cost_ratio = 1.05;
  e.thresholds.max_load_requests_vs_baseline = 2.0;  // A and B staged: 1.0x the baseline
  e.thresholds.reference = SpeedReference::kBaseline;
  e.thresholds.gpu = {{"NVIDIA H200", 1.8,
                       "measurements/lessons/2026-12-03-tensor-core-tiles.md: the same kernels "
                       "(fragment_loads.cu, the reference's padded rows vs rows of 64 halves) "
                       "2.593x and 2.605x at 4096^3 "
                       "in two runs; rows of 80 halves 2.07x",
                       2.593}};
  e.conflict_hint =
      "every fragment load reads 8 rows of one 16-byte column per phase, and rows 128 bytes "
      "apart start in the same bank group: give the tiles a row pitch that puts 8 consecutive "
      "rows in 8 different groups, and use it in the store and in the loads";
  e.hints = {
      "wmma::load_matrix_sync of a 16 x 16 half fragment is one ldmatrix.x4 on this GPU: 32 "
      "row addresses of 16 bytes, served in 4 phases of 8 consecutive rows. Which banks do the "
      "8 rows of one phase touch?",
      "Row r of a tile with rows of P bytes starts at byte P r, in 16-byte bank group "
      "(P r / 16) mod 8. With P = 128 that is the same group for every r: 8 rows, one group of "
      "4 banks, 8-way, 32 wavefronts for an ideal of 4.",
      "wmma takes a pointer and one row stride (ldm, a multiple of 8 halves): the layout it can "
      "read is a row pitch. Find a pitch P >= 128 bytes, a multiple of 16, for which P / 16 "
      "shares no factor with 8, declare the tiles with it, and use the same pitch in the "
      "staging store and as every load's ldm.",
  };
  return e;
}

/// Lessons 02 and 03: shared-memory throughput (every lane reads 4-byte words in a loop).
/// Size: n = the stride, m = blocks, k = iterations.
Workload smem_read_loop(bool column) {
  Workload w;
  w.buffers = {buffer("out", true, Elem::kF32, [](const Size& s) { return s.m * 1024; })};
  if (column) {
    w.args = {buf(0), scalar([](const Size& s) { return s.k; })};
  } else {
    w.args = {buf(0), scalar([](const Size& s) { return s.n; }),
              scalar([](const Size& s) { return s.k; })};
  }
  w.launch = [column](const Size& s) {
    Launch l;
    l.grid[0] = static_cast<unsigned>(s.m);
    l.block[0] = column ? 32 : 1024;
    l.block[1] = column ? 32 : 1;
    return l;
  };
  w.make_inputs = [](const Size&, Buffers&, std::mt19937_64&) {};
  w.precondition = [](const Size& s) {
    return s.k % 16 == 0 && s.m > 0 ? "" : "iterations (k) must be a multiple of 16";
  };
  w.rate = Rate::kSharedBytes;
  w.work = [](const Size& s) { return 4.0 * 1024 * d(s.m) * d(s.k); };
  return w;
}

std::vector<Demo> make_demos() {
  // 2112 blocks = 16 per SM of an H200 (132 SMs); profile sizes: one block per SM, 64 rounds.
  constexpr long long kBlocks = 16 * 132;
  const std::string file = "lessons/03-strides/stride_throughput.cu";
  Demo stride;
  stride.name = "smem-stride";
  stride.lesson = "03-strides";
  stride.kernels = {
      {"shared_stride_throughput", {file, "shared_stride_throughput"}, nullptr, false}};
  stride.workload = smem_read_loop(false);
  for (long long s : {1, 2, 3, 4, 8, 16, 32, 33}) {
    stride.sizes.push_back(Size{"stride=" + std::to_string(s), s, kBlocks, 4096});
    stride.profile_sizes.push_back(Size{"stride=" + std::to_string(s), s, 132, 64});
  }
  Demo column;
  column.name = "smem-column";
  column.lesson = "02-column-read";
  column.kernels = {{"tile[32][32]", {file, "shared_column_throughput<0>"}, nullptr, false},
                    {"tile[32][33]", {file, "shared_column_throughput<1>"}, nullptr, true}};
  column.workload = smem_read_loop(true);
  column.sizes = {Size{"tile", 0, kBlocks, 4096}};
  column.profile_sizes = {Size{"tile", 0, 132, 64}};
  return {stride, column};
}

// Exercises a copy of the course keeps in a file of its own (registry/src/local_exercises.inc,
// written whole, with this file's helpers in scope): the dry run of CONTRIBUTING.md adds its
// throw-away exercise there, so it never edits the table below.
#include "local_exercises.inc"

}  // namespace

std::size_t elem_bytes(Elem e) {
  switch (e) {
    case Elem::kF32:
      return 4;
    case Elem::kF64:
      return 8;
    case Elem::kI32:
      return 4;
  }
  return 4;
}

const std::vector<ExerciseSpec>& exercises() {
  static const std::vector<ExerciseSpec> table = [] {
    std::vector<ExerciseSpec> all = {ex01(), ex02(), ex03(), ex04(), ex05(), ex06(),
                                     ex07(), ex08(), ex09(), ex10(), ex11()};
    for (ExerciseSpec& e : local_exercises()) all.push_back(std::move(e));
    return all;
  }();
  return table;
}

const ExerciseSpec* find_exercise(const std::string& id_or_slug) {
  for (const ExerciseSpec& e : exercises()) {
    if (e.id == id_or_slug || e.slug == id_or_slug) return &e;
  }
  return nullptr;
}

const std::vector<Demo>& demos() {
  static const std::vector<Demo> table = make_demos();
  return table;
}

std::vector<KernelRef> all_kernels() {
  std::vector<KernelRef> out;
  std::set<std::string> seen;
  auto add = [&](const KernelRef& k) {
    if (seen.insert(k.file + ":" + k.kernel).second) out.push_back(k);
  };
  for (const ExerciseSpec& e : exercises()) {
    if (e.kind != ExerciseSpec::Kind::kKernel) continue;
    add(e.baseline);
    add(e.solution());
    for (const Variant& v : e.variants) add(v.kernel);
  }
  for (const Demo& d : demos()) {
    for (const Variant& v : d.kernels) add(v.kernel);
  }
  return out;
}

std::string kernel_symbol(const KernelRef& k) {
  std::uint64_t h = 1469598103934665603ULL;  // FNV-1a
  for (char c : k.file + ":" + k.kernel) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ULL;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "k_%016llx", static_cast<unsigned long long>(h));
  return buf;
}

std::vector<std::string> nvcc_flags(const std::string& arch) {
  return {"-O3", "-std=c++17", "-arch=sm_" + arch, "-lineinfo"};
}

const char* to_string(SpeedReference r) {
  switch (r) {
    case SpeedReference::kBaseline:
      return "baseline";
    case SpeedReference::kMemcpy:
      return "cudaMemcpy";
    case SpeedReference::kSgemm:
      return "cuBLAS SGEMM";
  }
  return "?";
}

}  // namespace course
