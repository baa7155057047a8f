// Speed of banksim (Google Benchmark): traced shared accesses per second, and the time to emulate
// a 1024x1024 transpose with 32x8 and 32x32 blocks. Compilation is outside the timed region.
//   make bench      (JSON in build/bench/banksim.json)
#include <benchmark/benchmark.h>

#include "banksim/banksim.hpp"

namespace {

banksim::Module& kernels() {
  static banksim::Module m = [] {
    banksim::CompileOptions o;
    o.kernels = {"shared_stride_loop"};
    return banksim::Module::compile("bench/bench_kernels.cu", o);
  }();
  return m;
}

banksim::Module& transposes() {
  static banksim::Module m = [] {
    banksim::CompileOptions o;
    o.kernels = {"transpose_tile<1>", "transpose_padded_32x32"};
    return banksim::Module::compile("tests/corpus/transpose.cu", o);
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

void BM_transpose_1024(benchmark::State& state, const char* kernel, unsigned rows) {
  const int n = 1024;
  banksim::DeviceBuffer in(n * n * sizeof(float));
  banksim::DeviceBuffer out(n * n * sizeof(float));
  for (auto _ : state) {
    const auto r =
        transposes().launch(kernel, {{32, 32}, {32, rows}}, {out, in, banksim::Arg::scalar(n)});
    if (!r.problems.empty()) state.SkipWithError("unexpected problems");
    state.counters["threads"] = static_cast<double>(r.threads);
  }
}
BENCHMARK_CAPTURE(BM_transpose_1024, block_32x8, "transpose_tile<1>", 8)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_transpose_1024, block_32x32, "transpose_padded_32x32", 32)
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
