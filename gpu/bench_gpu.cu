// bench_gpu.cu - Google Benchmark programs for every kernel the registry names, on a GPU (`make
// bench` builds and runs it when a GPU is present; JSON in build/bench/gpu.json). The cases are
// gpu/registry_jobs.cuh's, as in gpu/course_bench.cu: each result is checked once before it is
// timed (a wrong kernel is reported as an error, not timed). Each iteration is one launch after
// its buffers are restored and the L2 flushed, timed with CUDA events (manual time); counters
// give GB/s, TFLOP/s or TB/s.
#include <benchmark/benchmark.h>
#include <cuda_runtime.h>

#include <memory>
#include <string>

#include "ceilings.cuh"
#include "harness.cuh"
#include "registry_jobs.cuh"

namespace {

using namespace course::gpu;

void run_case(benchmark::State& state, const Case& c, const void* kernel, Checker* checker) {
  const std::string wrong = checker->check(c, kernel);
  if (!wrong.empty()) {
    state.SkipWithError(wrong.c_str());
    return;
  }
  const Job job = make_job(*c.workload, c.size, c.launch(c.size), 13);
  DeviceJob d(job);
  COURSE_CHECK_CUDA(d.launch(kernel));  // warm-up
  COURSE_CHECK_CUDA(cudaDeviceSynchronize());
  for (auto _ : state) {
    d.reset();
    const float ms = time_once_ms([&] { COURSE_CHECK_CUDA(d.launch(kernel)); });
    state.SetIterationTime(ms / 1e3);
  }
  const double work = c.workload->work(c.size) * static_cast<double>(state.iterations());
  const char* unit = c.workload->rate == course::Rate::kFlops         ? "FLOP/s"
                     : c.workload->rate == course::Rate::kSharedBytes ? "smem_bytes/s"
                                                                      : "bytes/s";
  state.counters[unit] = benchmark::Counter(work, benchmark::Counter::kIsRate);
}

double work_of(const CopyCeiling& c) {
  return c.bytes();
}
double work_of(const SgemmCeiling& c) {
  return c.flops();
}

/// The ceilings (gpu/ceilings.cuh), timed the same way as the kernels.
template <typename Ceiling>
void BM_ceiling(benchmark::State& state, const char* counter) {
  const Ceiling ceiling;
  const double work = work_of(ceiling);
  ceiling();  // warm-up
  for (auto _ : state) state.SetIterationTime(time_once_ms([&] { ceiling(); }) / 1e3);
  state.counters[counter] = benchmark::Counter(work * static_cast<double>(state.iterations()),
                                               benchmark::Counter::kIsRate);
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::RegisterBenchmark("ceiling/cudaMemcpy D2D", BM_ceiling<CopyCeiling>, "bytes/s")
      ->UseManualTime()
      ->Unit(benchmark::kMicrosecond)
      ->Iterations(20);
  benchmark::RegisterBenchmark("ceiling/cublasSgemm 4096", BM_ceiling<SgemmCeiling>, "FLOP/s")
      ->UseManualTime()
      ->Unit(benchmark::kMicrosecond)
      ->Iterations(20);
  static Checker checker;
  static const std::vector<Case> cases = all_cases(false);
  for (const Case& c : cases) {
    const void* kernel = find_kernel(c.kernel.file, c.kernel.kernel);
    if (kernel == nullptr) continue;
    benchmark::RegisterBenchmark(
        (c.group + "/" + c.name + "/" + c.size.label).c_str(),
        [&c, kernel](benchmark::State& s) { run_case(s, c, kernel, &checker); })
        ->UseManualTime()
        ->Unit(benchmark::kMicrosecond)
        ->Iterations(20);
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
