// exercises.cpp - the table of exercises: one entry per lesson's exercise, with its CPU reference.
//
// Thresholds. CPU mode judges "speed" by the bank model: baseline wavefronts / student wavefronts
// at sizes[0], with the threshold about half of what the reference solution reaches (numbers in
// each entry's comment, from `make grade SUBMISSION=solutions`). GPU mode times the kernels: each
// threshold is set with margin below the worst of three runs of baseline vs solution on the H200
// (measurements/h200-2026-11-30/README.md, `scripts/gpu-measure.sh`; runs agreed within 1%).
#include <cmath>
#include <cstring>

#include "grader/spec.hpp"

namespace grader {
namespace {

constexpr int kTile = 32;

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

/// out (rows_out x cols_out) = in^T, elements of `width` scalars of type T.
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
  return BufferSpec{name, output, elem, std::move(count)};
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

/// The common parts of an n x n transpose exercise (04, 06, 07): buffers out (written) and in of
/// n*n elements of `width` scalars of T, arguments (out, in, n), a grid of tiles of
/// tile_cols x tile_rows elements, random inputs and the CPU reference.
template <typename T>
void square_transpose(ExerciseSpec& e, int width, unsigned tile_cols, unsigned tile_rows,
                      unsigned block_x, unsigned block_y) {
  const Elem elem = sizeof(T) == 8 ? Elem::kF64 : Elem::kF32;
  const auto count = [width](const Size& s) { return static_cast<std::size_t>(width * s.n * s.n); };
  e.buffers = {buffer("out", true, elem, count), buffer("in", false, elem, count)};
  e.args = {buf(0), buf(1), scalar([](const Size& s) { return s.n; })};
  e.launch = [=](const Size& s) {
    Launch l;
    l.grid[0] = ceil_div(s.n, tile_cols);
    l.grid[1] = ceil_div(s.n, tile_rows);
    l.block[0] = block_x;
    l.block[1] = block_y;
    return l;
  };
  e.make_inputs = [](const Size&, Buffers& b, std::mt19937_64& rng) { fill_uniform<T>(b[1], rng); };
  e.reference = [width](const Size& s, Buffers& b) {
    transpose_reference<T>(b[1], b[0], s.n, s.n, width);
  };
}

/// The common parts of a C = A * B^T exercise (05, 08): buffers c (written), a (m x k) and b
/// (n x k), arguments (c, a, b, m, n, k), random inputs, the CPU reference in double.
void gemm_abt_operands(ExerciseSpec& e) {
  e.buffers = {buffer("c", true, Elem::kF32, [](const Size& s) { return s.m * s.n; }),
               buffer("a", false, Elem::kF32, [](const Size& s) { return s.m * s.k; }),
               buffer("b", false, Elem::kF32, [](const Size& s) { return s.n * s.k; })};
  e.args = {buf(0),
            buf(1),
            buf(2),
            scalar([](const Size& s) { return s.m; }),
            scalar([](const Size& s) { return s.n; }),
            scalar([](const Size& s) { return s.k; })};
  e.make_inputs = [](const Size&, Buffers& b, std::mt19937_64& rng) {
    fill_uniform<float>(b[1], rng);
    fill_uniform<float>(b[2], rng);
  };
  e.reference = [](const Size& s, Buffers& b) {
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
  e.tolerance_abs = 1e-4;
  e.tolerance_rel = 1e-4;
}

std::vector<ExerciseSpec> make_table() {
  std::vector<ExerciseSpec> t;
  const auto n_of = [](const Size& s) { return s.n; };

  {  // 01: host C++, graded against the bank model on random requests.
    ExerciseSpec e;
    e.id = "01";
    e.slug = "01-banks-and-words";
    e.title = "Banks and words: the wavefronts of a 4-byte request";
    e.kind = ExerciseSpec::Kind::kHost;
    e.file = "bank_math.cpp";
    e.kernel = "wavefronts_4byte";
    e.host_cases = 3000;
    e.points = Points{10, 90, 0, 0, 0, 0};
    t.push_back(e);
  }
  {  // 02: reference solution: 16.5x fewer wavefronts than the baseline at n = 256.
    ExerciseSpec e;
    e.id = "02";
    e.slug = "02-column-read";
    e.title = "The column read: transpose an n x 32 matrix through a tile";
    e.file = "transpose_rows.cu";
    e.kernel = "transpose_n_by_32";
    e.baseline_file = "lessons/02-column-read/column_read.cu";
    e.baseline_kernel = "transpose_n_by_32_naive";
    e.buffers = {buffer("out", true, Elem::kF32, [](const Size& s) { return 32 * s.n; }),
                 buffer("in", false, Elem::kF32, [](const Size& s) { return 32 * s.n; })};
    e.args = {buf(0), buf(1), scalar(n_of)};
    e.sizes = {n_size(256), n_size(70), n_size(5)};
    e.gpu_timing_size = n_size(1 << 20);
    e.launch = [](const Size& s) {
      Launch l;
      l.grid[0] = ceil_div(s.n, kTile);
      l.block[0] = kTile;
      l.block[1] = kTile;
      return l;
    };
    e.make_inputs = [](const Size&, Buffers& b, std::mt19937_64& rng) {
      fill_uniform<float>(b[1], rng);
    };
    e.reference = [](const Size& s, Buffers& b) {
      transpose_reference<float>(b[1], b[0], s.n, 32, 1);
    };
    e.cpu_min_wavefront_ratio = 8.0;
    e.gpu_min_speedup = 1.5;  // H200: 1.803-1.806x
    e.conflict_hint = "pad each row of the tile by one float, or XOR-swizzle the column index";
    t.push_back(e);
  }
  {  // 03: reference solution: 2.0x fewer wavefronts than the interleaved baseline.
    ExerciseSpec e;
    e.id = "03";
    e.slug = "03-strides";
    e.title = "Strides: complex neighbour differences without 2-way conflicts";
    e.file = "complex_diff.cu";
    e.kernel = "complex_neighbour_diff";
    e.baseline_file = "lessons/03-strides/strides.cu";
    e.baseline_kernel = "complex_neighbour_diff_interleaved";
    e.buffers = {buffer("out", true, Elem::kF32, [](const Size& s) { return s.n - 1; }),
                 buffer("in", false, Elem::kF32, [](const Size& s) { return 2 * s.n; })};
    e.args = {buf(0), buf(1), scalar(n_of)};
    e.sizes = {n_size(4097), n_size(1000), n_size(2)};
    e.gpu_timing_size = n_size(1 << 24);
    e.launch = [](const Size& s) {
      Launch l;
      l.grid[0] = ceil_div(s.n - 1, 256);
      l.block[0] = 256;
      return l;
    };
    e.make_inputs = [](const Size&, Buffers& b, std::mt19937_64& rng) {
      fill_uniform<float>(b[1], rng);
    };
    e.reference = [](const Size& s, Buffers& b) {
      const float* z = as<float>(b[1]);
      float* out = as<float>(b[0]);
      for (long long i = 0; i + 1 < s.n; ++i) {
        const float dr = z[2 * i + 2] - z[2 * i];
        const float di = z[2 * i + 3] - z[2 * i + 1];
        out[i] = dr * dr + di * di;
      }
    };
    e.tolerance_abs = 1e-6;
    e.tolerance_rel = 1e-5;
    e.cpu_min_wavefront_ratio = 1.8;
    e.gpu_min_speedup = 0.9;  // H200: 0.994-0.995x: memory-bound, and nvcc merges the loads
    e.conflict_hint =
        "store the real and imaginary parts in two arrays (structure of arrays), or read each "
        "number as one float2";
    t.push_back(e);
  }
  {  // 04: reference solution: 16.5x fewer wavefronts than tile[32][32].
    ExerciseSpec e;
    e.id = "04";
    e.slug = "04-padding-transpose";
    e.title = "The padding fix: tiled matrix transpose";
    e.file = "transpose.cu";
    e.kernel = "transpose_tiled";
    e.baseline_file = "lessons/04-padding-transpose/transpose_naive.cu";
    e.baseline_kernel = "transpose_tiled_naive";
    square_transpose<float>(e, 1, kTile, kTile, kTile, 8);
    e.sizes = {n_size(512), n_size(70), n_size(33)};
    e.gpu_timing_size = n_size(4096);
    e.cpu_min_wavefront_ratio = 8.0;
    e.gpu_min_speedup = 1.8;  // H200: 2.191-2.201x
    e.conflict_hint = "pad each tile row by one float: tile[32][33]";
    t.push_back(e);
  }
  {  // 05: reference solution: 16.0x fewer wavefronts than the unpadded B tile.
    ExerciseSpec e;
    e.id = "05";
    e.slug = "05-gemm-tile";
    e.title = "GEMM tiles: C = A * B^T through shared memory";
    e.file = "gemm_abt.cu";
    e.kernel = "gemm_abt";
    e.baseline_file = "lessons/05-gemm-tile/gemm_naive.cu";
    e.baseline_kernel = "gemm_abt_naive";
    gemm_abt_operands(e);
    e.sizes = {Size{"m=n=k=128", 128, 128, 128}, Size{"m=40 n=36 k=70", 40, 36, 70},
               Size{"m=1 n=33 k=5", 1, 33, 5}};
    // Size fields: n = columns of C (rows of B), m = rows of C, k = the reduction length.
    e.gpu_timing_size = Size{"m=n=k=2048", 2048, 2048, 2048};
    e.launch = [](const Size& s) {
      Launch l;
      l.grid[0] = ceil_div(s.n, kTile);
      l.grid[1] = ceil_div(s.m, kTile);
      l.block[0] = l.block[1] = kTile;
      return l;
    };
    e.tolerance_abs = 1e-4;
    e.tolerance_rel = 1e-4;
    e.cpu_min_wavefront_ratio = 8.0;
    e.gpu_min_speedup = 4.0;  // H200: 5.149-5.150x
    e.conflict_hint = "pad the B tile by one float per row: bs[32][33]";
    t.push_back(e);
  }
  {  // 06: reference solution: 4.5x fewer wavefronts than the unswizzled float4 tile.
    ExerciseSpec e;
    e.id = "06";
    e.slug = "06-xor-swizzle";
    e.title = "XOR swizzle: transpose a float4 matrix with 16-byte accesses";
    e.file = "transpose_float4.cu";
    e.kernel = "transpose_float4";
    e.baseline_file = "lessons/06-xor-swizzle/transpose_float4_naive.cu";
    e.baseline_kernel = "transpose_float4_naive";
    square_transpose<float>(e, 4, 8, 32, 8, 32);  // tiles of 32 rows x 8 float4
    e.sizes = {n_size(256), n_size(70), n_size(9)};
    e.gpu_timing_size = n_size(2048);
    e.cpu_min_wavefront_ratio = 3.0;
    e.gpu_min_speedup = 1.05;  // H200: 1.113-1.121x
    e.conflict_hint =
        "XOR the 16-byte chunk index with the row: tile[r][c ^ (r % 8)], on both "
        "the store and the load";
    t.push_back(e);
  }
  {  // 07: reference solution: 8.5x fewer wavefronts than double tile[32][32].
    ExerciseSpec e;
    e.id = "07";
    e.slug = "07-wide-accesses";
    e.title = "Wide accesses: transpose a matrix of doubles";
    e.file = "transpose_double.cu";
    e.kernel = "transpose_double";
    e.baseline_file = "lessons/07-wide-accesses/wide.cu";
    e.baseline_kernel = "transpose_double_naive";
    square_transpose<double>(e, 1, kTile, kTile, kTile, 8);
    e.sizes = {n_size(256), n_size(70), n_size(33)};
    e.gpu_timing_size = n_size(4096);
    e.cpu_min_wavefront_ratio = 4.0;
    e.gpu_min_speedup = 1.2;  // H200: 1.332-1.333x
    e.conflict_hint = "pad each row of the double tile by one element: tile[32][33]";
    t.push_back(e);
  }
  {  // 08 (stretch): reference solution: 1.08x fewer wavefronts (only the stores conflicted).
    ExerciseSpec e;
    e.id = "08";
    e.slug = "08-gemm-register-blocked";
    e.title = "Stretch: a register-blocked GEMM with 16-byte shared accesses";
    e.file = "gemm_fast.cu";
    e.kernel = "gemm_abt_register_blocked";
    e.baseline_file = "lessons/08-gemm-register-blocked/gemm_unpadded.cu";
    e.baseline_kernel = "gemm_abt_register_blocked_unpadded";
    gemm_abt_operands(e);
    // The kernel's preconditions: m and n multiples of 128, k a multiple of 8.
    e.sizes = {Size{"m=n=128 k=64", 128, 128, 64}, Size{"m=256 n=128 k=40", 256, 128, 40},
               Size{"m=128 n=384 k=8", 128, 384, 8}};
    e.gpu_timing_size = Size{"m=n=k=4096", 4096, 4096, 4096};
    e.launch = [](const Size& s) {
      Launch l;
      l.grid[0] = ceil_div(s.n, 128);
      l.grid[1] = ceil_div(s.m, 128);
      l.block[0] = 256;
      return l;
    };
    e.cpu_min_wavefront_ratio = 1.05;
    // H200, 3 runs at 4096^3: 1.01-1.02x (3.47 vs 3.52 ms): the stores are a small share of the
    // shared traffic, so the GPU gate only asks "not slower"; the conflicts gate does the work.
    e.gpu_min_speedup = 0.95;
    e.conflict_hint =
        "pad each k-row of the tiles by 4 floats (as[8][128 + 4]): rows stay 16-byte aligned and "
        "the odd lanes' stores move 16 banks over";
    t.push_back(e);
  }
  return t;
}

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
  static const std::vector<ExerciseSpec> table = make_table();
  return table;
}

const ExerciseSpec* find_exercise(const std::string& id_or_slug) {
  for (const ExerciseSpec& e : exercises()) {
    if (e.id == id_or_slug || e.slug == id_or_slug) return &e;
  }
  return nullptr;
}

}  // namespace grader
