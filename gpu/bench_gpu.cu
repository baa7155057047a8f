// bench_gpu.cu - Google Benchmark programs for every kernel the registry names, on a GPU (`make
// bench` builds and runs it when a GPU is present; JSON in build/bench/gpu.json). The cases are
// gpu/registry_jobs.cuh's, as in gpu/course_bench.cu: each result is checked once before it is
// timed (a wrong kernel is reported as an error, not timed). Each iteration is one launch after
// its buffers are restored and the L2 flushed, timed with CUDA events (manual time); counters
// give GB/s, TFLOP/s or TB/s.
#include <benchmark/benchmark.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <memory>
#include <string>

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

/// The ceilings, timed the same way: a 256 MiB device-to-device copy (bytes read + written) and
/// cuBLAS SGEMM C = A B^T at 4096^3 in pedantic fp32 (no TF32).
void BM_ceiling_memcpy(benchmark::State& state) {
  const size_t bytes = size_t{256} << 20;
  DeviceBuffer src(bytes), dst(bytes);
  fill_uniform<float>(src, 1);
  for (auto _ : state) {
    state.SetIterationTime(time_once_ms([&] {
                             COURSE_CHECK_CUDA(cudaMemcpyAsync(dst.data(), src.data(), bytes,
                                                               cudaMemcpyDeviceToDevice));
                           }) /
                           1e3);
  }
  state.counters["bytes/s"] = benchmark::Counter(
      2.0 * bytes * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

void BM_ceiling_sgemm(benchmark::State& state) {
  const int n = 4096;
  DeviceBuffer a(size_t{4} * n * n), b(size_t{4} * n * n), c(size_t{4} * n * n);
  fill_uniform<float>(a, 2);
  fill_uniform<float>(b, 3);
  cublasHandle_t h;
  cublasCreate(&h);
  cublasSetMathMode(h, CUBLAS_PEDANTIC_MATH);
  const float one = 1.0f, zero = 0.0f;
  for (auto _ : state) {
    state.SetIterationTime(time_once_ms([&] {
                             cublasSgemm(h, CUBLAS_OP_T, CUBLAS_OP_N, n, n, n, &one, b.as<float>(),
                                         n, a.as<float>(), n, &zero, c.as<float>(), n);
                           }) /
                           1e3);
  }
  cublasDestroy(h);
  state.counters["FLOP/s"] = benchmark::Counter(
      2.0 * n * n * n * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::RegisterBenchmark("ceiling/cudaMemcpy D2D", BM_ceiling_memcpy)
      ->UseManualTime()
      ->Unit(benchmark::kMicrosecond)
      ->Iterations(20);
  benchmark::RegisterBenchmark("ceiling/cublasSgemm 4096", BM_ceiling_sgemm)
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
