// course_bench.cu - times every kernel the registry names on a GPU (each exercise's baseline,
// solution and variants at its bench size; the lessons' shared-memory demos) against the ceilings
// measured in the same run (cudaMemcpy device-to-device, cuBLAS SGEMM in pedantic fp32, 128 B per
// clock per SM), after checking each result (gpu/registry_jobs.cuh: CPU reference at the small
// size, the baseline's GPU output at the timed size). Built by CMake (target course_bench) or, on
// a bare GPU machine, by scripts/gpu-measure.sh:
//   ./course_bench [--json FILE]   time everything (warm-up, L2 flushed, fresh inputs, median 15)
//   ./course_bench --profile       every kernel once at its small size (for ncu, compute-sanitizer)
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "ceilings.cuh"
#include "harness.cuh"
#include "registry_jobs.cuh"

namespace {

using namespace course::gpu;

struct Ceilings {
  double memcpy_gbs = 0;  ///< device-to-device copy, bytes read + written
  double sgemm_tflops = 0;
  double smem_tbs = 0;  ///< 128 B per clock per SM
};

Ceilings measure_ceilings() {
  Ceilings c;
  int sms = 0, clock_khz = 0;
  COURSE_CHECK_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  COURSE_CHECK_CUDA(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
  c.smem_tbs = sms * 128.0 * clock_khz * 1e3 / 1e12;
  const CopyCeiling copy;
  c.memcpy_gbs = copy.bytes() / median_ms([&] { copy(); }) / 1e6;
  const SgemmCeiling sgemm;
  c.sgemm_tflops = sgemm.flops() / median_ms([&] { sgemm(); }) / 1e9;
  return c;
}

}  // namespace

int main(int argc, char** argv) {
  bool profile = false;
  std::FILE* json = nullptr;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--profile") == 0) profile = true;
    if (std::strcmp(argv[i], "--json") == 0 && i + 1 < argc) json = std::fopen(argv[++i], "w");
  }
  cudaDeviceProp prop;
  COURSE_CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  int driver = 0, runtime = 0;
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  std::printf("# %s, sm_%d%d, %d SMs, CUDA driver %d, runtime %d%s\n", prop.name, prop.major,
              prop.minor, prop.multiProcessorCount, driver, runtime,
              profile ? " (profile mode: one launch per kernel, small sizes)" : "");
  Ceilings ceil;
  if (!profile) {
    ceil = measure_ceilings();
    std::printf(
        "# ceilings: cudaMemcpy D2D %.1f GB/s, cuBLAS SGEMM (pedantic fp32) %.2f TFLOP/s, "
        "shared memory %.1f TB/s\n",
        ceil.memcpy_gbs, ceil.sgemm_tflops, ceil.smem_tbs);
  }
  int failures = 0;
  Checker checker;
  for (const Case& c : all_cases(profile)) {
    const void* kernel = find_kernel(c.kernel.file, c.kernel.kernel);
    if (kernel == nullptr) {
      std::printf("MISSING %s:%s in the kernel table\n", c.kernel.file.c_str(),
                  c.kernel.kernel.c_str());
      ++failures;
      continue;
    }
    std::string error;
    if (profile) {
      Job job = make_job(*c.workload, c.size, c.launch(c.size), 5);
      if (!run_once(kernel, job, &error)) {
        std::printf("FAILED %s %s: %s\n", c.group.c_str(), c.name.c_str(), error.c_str());
        ++failures;
      }
      continue;
    }
    const std::string wrong = checker.check(c, kernel);
    if (!wrong.empty()) {
      std::printf("CHECK FAILED %s %s: %s\n", c.group.c_str(), c.name.c_str(), wrong.c_str());
      ++failures;
    }
    const Job job = make_job(*c.workload, c.size, c.launch(c.size), 13);
    const double ms = median_ms_fresh(kernel, job, &error);
    if (ms < 0) {
      std::printf("FAILED %s %s: %s\n", c.group.c_str(), c.name.c_str(), error.c_str());
      ++failures;
      continue;
    }
    const double work = c.workload->work(c.size);
    const char* unit = "GB/s";
    double value = work / ms / 1e6, ceiling = ceil.memcpy_gbs;
    const char* of = "memcpy";
    if (c.workload->rate == course::Rate::kFlops) {
      unit = "TFLOP/s", value = work / ms / 1e9, ceiling = ceil.sgemm_tflops, of = "cuBLAS";
    } else if (c.workload->rate == course::Rate::kSharedBytes) {
      unit = "TB/s", value = work / ms / 1e9, ceiling = ceil.smem_tbs, of = "smem peak";
    }
    std::printf("%-12s %-38s %-14s %10.4f ms %10.2f %-7s %7.2f%% of %s\n", c.group.c_str(),
                c.name.substr(0, 38).c_str(), c.size.label.c_str(), ms, value, unit,
                100.0 * value / ceiling, of);
    if (json != nullptr) {
      std::fprintf(json,
                   "{\"group\":\"%s\",\"kernel\":\"%s\",\"role\":\"%s\",\"size\":\"%s\","
                   "\"ms\":%.6f,\"value\":%.3f,\"unit\":\"%s\",\"fraction\":%.5f,\"of\":\"%s\"}\n",
                   c.group.c_str(), c.name.c_str(), c.role.c_str(), c.size.label.c_str(), ms, value,
                   unit, value / ceiling, of);
    }
  }
  if (json != nullptr) std::fclose(json);
  std::printf("# checks: %s\n", failures == 0 ? "all results correct" : "FAILURES");
  return failures == 0 ? 0 : 1;
}
