// Speed of banksim (Google Benchmark): traced shared accesses per second on a stride loop, on a
// 1024x1024 transpose with 32x8 (256-thread) and 32x32 (1024-thread) blocks, and on the course's
// register-tiled 128x128x8 GEMM block (exercise 08's solution; the goal is >= 30 M/s of each).
// Compilation is outside the timed region; clang's access widths (nvcc's regrouping is measured
// by the tests, not here).
//   make bench      (JSON in build/bench/banksim.json)
#include <benchmark/benchmark.h>

#include "banksim/banksim.hpp"

namespace {

banksim::Module& kernels() {
  static banksim::Module m = [] {
    banksim::CompileOptions o;
    o.kernels = {"shared_stride_loop", "barrier_only", "no_barrier_scale"};
    o.widths = banksim::Widths::kClang;
    return banksim::Module::compile("bench/bench_kernels.cu", o);
  }();
  return m;
}

banksim::Module& transposes() {
  static banksim::Module m = [] {
    banksim::CompileOptions o;
    o.kernels = {"transpose_tile<1>", "transpose_padded_32x32"};
    o.widths = banksim::Widths::kClang;
    return banksim::Module::compile("tests/corpus/transpose.cu", o);
  }();
  return m;
}

banksim::Module& register_tiled() {
  static banksim::Module m = [] {
    banksim::CompileOptions o;
    o.kernels = {"gemm_abt_register_blocked"};
    o.widths = banksim::Widths::kClang;
    return banksim::Module::compile("solutions/08-gemm-register-blocked/gemm_fast.cu", o);
  }();
  return m;
}

void BM_traced_shared_accesses(benchmark::State& state) {
  const int iters = 2048;
  const int stride = static_cast<int>(state.range(0));
  banksim::DeviceBuffer out(1024 * sizeof(float));
  std::uint64_t traced = 0;
  for (auto _ : state) {
    const auto r =
        kernels().launch("shared_stride_loop", {1, 1024},
                         {out, banksim::Arg::scalar(stride), banksim::Arg::scalar(iters)});
    traced += r.traced_shared_accesses;
    if (!r.problems.empty()) state.SkipWithError("unexpected problems");
  }
  state.counters["traced_per_s"] =
      benchmark::Counter(static_cast<double>(traced), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_traced_shared_accesses)->Arg(1)->Arg(32)->Unit(benchmark::kMillisecond);

// The cost of a thread with nothing to trace: 1024 blocks of 256 or 1024 threads that only meet
// at one barrier (s_per_thread; a transpose's 1024-thread block has two accesses per thread).
void BM_thread_floor(benchmark::State& state) {
  const unsigned threads = static_cast<unsigned>(state.range(0));
  std::uint64_t ran = 0;
  for (auto _ : state) {
    const auto r = kernels().launch("barrier_only", {{32, 32}, {threads, 1}}, {});
    if (!r.problems.empty() || !r.completed) state.SkipWithError("unexpected problems");
    ran += r.threads;
  }
  state.counters["s_per_thread"] = benchmark::Counter(
      static_cast<double>(ran), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_thread_floor)->Arg(256)->Arg(1024)->Unit(benchmark::kMillisecond);

// A kernel with no barrier (one region a thread, not cut): 1024 blocks of 256 or 1024 threads,
// each thread one shared store, one shared load and two global accesses (s_per_thread).
void BM_no_barrier(benchmark::State& state) {
  const unsigned threads = static_cast<unsigned>(state.range(0));
  const std::size_t n = std::size_t{1024} * threads;
  banksim::DeviceBuffer in(n * sizeof(float));
  banksim::DeviceBuffer out(n * sizeof(float));
  std::uint64_t ran = 0;
  for (auto _ : state) {
    const auto r = kernels().launch("no_barrier_scale", {{32, 32}, {threads, 1}}, {out, in});
    if (!r.problems.empty() || !r.completed) state.SkipWithError("unexpected problems");
    ran += r.threads;
  }
  state.counters["s_per_thread"] = benchmark::Counter(
      static_cast<double>(ran), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_no_barrier)->Arg(256)->Arg(1024)->Unit(benchmark::kMillisecond);

void BM_transpose_1024(benchmark::State& state, const char* kernel, unsigned rows) {
  const int n = 1024;
  banksim::DeviceBuffer in(n * n * sizeof(float));
  banksim::DeviceBuffer out(n * n * sizeof(float));
  std::uint64_t traced = 0;
  for (auto _ : state) {
    const auto r =
        transposes().launch(kernel, {{32, 32}, {32, rows}}, {out, in, banksim::Arg::scalar(n)});
    if (!r.problems.empty()) state.SkipWithError("unexpected problems");
    state.counters["threads"] = static_cast<double>(r.threads);
    traced += r.traced_shared_accesses;
  }
  state.counters["traced_per_s"] =
      benchmark::Counter(static_cast<double>(traced), benchmark::Counter::kIsRate);
}
BENCHMARK_CAPTURE(BM_transpose_1024, block_32x8, "transpose_tile<1>", 8)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_transpose_1024, block_32x32, "transpose_padded_32x32", 32)
    ->Unit(benchmark::kMillisecond);

// One 128x128 block of C = A B^T, K = 256 in steps of 8 (32 tiles), 256 threads of 8x8 outputs.
void BM_register_tiled_gemm(benchmark::State& state) {
  const int m = 128, n = 128, k = 256;
  banksim::DeviceBuffer c(m * n * sizeof(float));
  banksim::DeviceBuffer a(m * k * sizeof(float));
  banksim::DeviceBuffer b(n * k * sizeof(float));
  std::uint64_t traced = 0;
  for (auto _ : state) {
    const auto r = register_tiled().launch(
        "gemm_abt_register_blocked", {{1, 1}, {256, 1}},
        {c, a, b, banksim::Arg::scalar(m), banksim::Arg::scalar(n), banksim::Arg::scalar(k)});
    if (!r.problems.empty() || !r.completed) state.SkipWithError("unexpected problems");
    traced += r.traced_shared_accesses;
  }
  state.counters["traced_per_s"] =
      benchmark::Counter(static_cast<double>(traced), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_register_tiled_gemm)->Unit(benchmark::kMillisecond);

// A block-wide scan with warp shuffles (tests/everyday/warp_shuffle_scan.cu): 64 blocks of 1024
// threads, each thread stopping at 11 shuffles and a barrier (s_per_thread: what a thread of a
// shuffle-heavy kernel costs).
void BM_warp_shuffle_scan(benchmark::State& state) {
  static banksim::Module scan = [] {
    banksim::CompileOptions o;
    o.kernels = {"block_scan"};
    o.widths = banksim::Widths::kClang;
    return banksim::Module::compile("tests/everyday/warp_shuffle_scan.cu", o);
  }();
  const unsigned blocks = 64;
  banksim::DeviceBuffer in(blocks * 1024 * sizeof(float));
  banksim::DeviceBuffer out(blocks * 1024 * sizeof(float));
  std::uint64_t ran = 0;
  for (auto _ : state) {
    const auto r = scan.launch("block_scan", {{blocks, 1}, {1024, 1}}, {in, out});
    if (!r.problems.empty() || !r.completed) state.SkipWithError("unexpected problems");
    ran += r.threads;
  }
  state.counters["s_per_thread"] = benchmark::Counter(
      static_cast<double>(ran), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_warp_shuffle_scan)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
