// measure.cu - times and profiles the kernels of lessons 09 and 10 on a GPU (no grader needed):
// the scan's baseline and solution at exercise 09's GPU timing size, the histogram kernels on
// three kinds of bytes at exercise 10's, each the way the grader times (gpu/harness.cuh: median
// of 15, L2 flushed, fresh inputs). `profile` launches each kernel once at a small size, for ncu.
// Built and run by run.sh beside it:
//   nvcc -O3 -std=c++17 -arch=sm_90 -lineinfo -I. -Igpu -Igpu/include -Iregistry/include
//       measure.cu registry/src/registry.cpp -o measure && ./measure time|profile
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "course_todo.h"
#include "registry_jobs.cuh"

namespace reduce {
#include "lessons/09-reductions-scans/reduce.cu"
}
namespace scan_base {
#include "lessons/09-reductions-scans/scan_blelloch.cu"
}
namespace scan_sol {
#include "solutions/09-reductions-scans/scan_blocks.cu"
}
namespace hist_base {
#include "lessons/10-histograms/histogram_shared.cu"
}
namespace hist_sol {
#include "solutions/10-histograms/histogram256.cu"
}

namespace course::gpu {  // no generated kernel table here: the kernels are named directly
const KernelEntry kKernelTable[1] = {{"", "", nullptr}};
const int kKernelTableSize = 0;
}  // namespace course::gpu

using namespace course::gpu;

namespace {

/// Rewrites the bytes of exercise 10's input: "skewed" keeps the registry's, "uniform" draws
/// every byte from 0..255, "zero" makes every byte 0 (one bin).
void set_bytes(Job& job, const std::string& kind) {
  if (kind == "skewed") return;
  std::vector<unsigned char>& b = job.buffers[1];
  std::mt19937_64 rng(3);
  for (auto& x : b) x = kind == "zero" ? 0 : static_cast<unsigned char>(rng());
}

double time_ms(const void* kernel, const Job& job) {
  std::string error;
  const double ms = median_ms_fresh(kernel, job, &error);
  if (ms < 0) std::printf("FAILED: %s\n", error.c_str());
  return ms;
}

}  // namespace

int main(int argc, char** argv) {
  const bool profile = argc > 1 && std::strcmp(argv[1], "profile") == 0;
  const course::ExerciseSpec& e09 = *course::find_exercise("09");
  const course::ExerciseSpec& e10 = *course::find_exercise("10");
  const course::Size s09 = profile ? e09.sizes[0] : e09.gpu_timing_size;
  const course::Size s10 = profile ? e10.sizes[0] : e10.gpu_timing_size;
  Job j09 = make_job(e09.workload, s09, e09.workload.launch(s09), 11);
  std::string error;
  if (profile) {
    // reductions: 2^20 floats, blocks of 256 (the lesson's kernels)
    Job red;
    red.grid = dim3(4096);
    red.block = dim3(256);
    red.buffers = {std::vector<unsigned char>(4096 * 4), std::vector<unsigned char>((1 << 20) * 4)};
    red.args = {JobArg{0, 0}, JobArg{1, 0}, JobArg{-1, 1 << 20}};
    for (const void* k : {(const void*)reduce::reduce_interleaved, (const void*)reduce::reduce_sequential}) {
      if (!run_once(k, red, &error)) std::printf("FAILED reduce: %s\n", error.c_str());
    }
    for (const void* k : {(const void*)scan_base::scan_blocks_blelloch, (const void*)scan_sol::scan_blocks}) {
      Job j = j09;
      if (!run_once(k, j, &error)) std::printf("FAILED scan: %s\n", error.c_str());
    }
    Job j10 = make_job(e10.workload, s10, e10.workload.launch(s10), 11);
    for (const void* k : {(const void*)hist_base::histogram_one_table,
                          (const void*)hist_base::histogram_per_warp, (const void*)hist_sol::histogram256}) {
      Job j = j10;
      if (!run_once(k, j, &error)) std::printf("FAILED histogram: %s\n", error.c_str());
    }
    return 0;
  }
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);
  std::printf("# %s, %d SMs\n", prop.name, prop.multiProcessorCount);
  const double b09 = time_ms((const void*)scan_base::scan_blocks_blelloch, j09);
  const double x09 = time_ms((const void*)scan_sol::scan_blocks, j09);
  std::printf("scan %s: baseline %.4f ms, solution %.4f ms, %.3fx\n", s09.label.c_str(), b09, x09,
              b09 / x09);
  for (const char* kind : {"skewed", "uniform", "zero"}) {
    Job j = make_job(e10.workload, s10, e10.workload.launch(s10), 11);
    set_bytes(j, kind);
    const double one = time_ms((const void*)hist_base::histogram_one_table, j);
    const double warp = time_ms((const void*)hist_base::histogram_per_warp, j);
    const double sol = time_ms((const void*)hist_sol::histogram256, j);
    std::printf("histogram %s %-7s: one table %.4f ms, per warp %.4f ms, per lane %.4f ms "
                "(%.3fx, %.3fx)\n",
                s10.label.c_str(), kind, one, warp, sol, one / sol, one / warp);
  }
  return 0;
}
