// nvcc-compile-all: skip (it includes corpus.inc, which run.sh generates from tests/students/10)
// measure.cu - exercise 10 on a GPU without the grader: the one-table baseline, the solution,
// lesson 10's per-warp tables and every corpus variant (tests/students/10, via corpus.inc).
//   time    each kernel checked against the CPU reference at the exercise's sizes and against
//           the baseline's output at its GPU timing size, then timed there as the grader times
//           (gpu/harness.cuh: median of 15 after 2 warm-ups, L2 flushed, fresh inputs; seed 11)
//   bytes   baseline, per-warp tables and solution on five kinds of bytes at the timing size
//   profile baseline and solution launched once at sizes[0] (seed 11), for Nsight Compute
// Built and run by run.sh beside it (from the repository root):
//   nvcc $(course-registry nvcc-flags) -I. -I/tmp -Igpu -Igpu/include -Iregistry/include
//       $HERE/measure.cu registry/src/registry.cpp -o measure
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>
#include <random>
#include <string>

#include "course_todo.h"
#include "registry_jobs.cuh"

namespace hist_base {
#include "lessons/10-histograms/histogram_shared.cu"
}
namespace hist_sol {
#include "solutions/10-histograms/histogram256.cu"
}

struct CorpusEntry {
  const char* name;
  const void* kernel;
};
#include "corpus.inc"

namespace course::gpu {  // no generated kernel table here: the kernels are named directly
const KernelEntry kKernelTable[1] = {{"", "", nullptr}};
const int kKernelTableSize = 0;
}  // namespace course::gpu

using namespace course::gpu;

namespace {

double time_ms(const void* kernel, const Job& job) {
  std::string error;
  const double ms = median_ms_fresh(kernel, job, &error);
  if (ms < 0) std::printf("FAILED: %s\n", error.c_str());
  return ms;
}

/// Rewrites the bytes of the input: "image" keeps the registry's posterised image; "skewed" is
/// the draw exercise 10 had before (half 0, the others uniform over 0..255); "uniform" every
/// byte from 0..255; "bank0" every byte a multiple of 32 (uniform over 0, 32, ..., 224); "zero"
/// every byte 0 (one bin).
void set_bytes(Job& job, const std::string& kind) {
  if (kind == "image") return;
  std::vector<unsigned char>& b = job.buffers[1];
  std::mt19937_64 rng(3);
  for (auto& x : b) {
    const unsigned r = static_cast<unsigned>(rng());
    x = kind == "zero"      ? 0
        : kind == "uniform" ? static_cast<unsigned char>(r)
        : kind == "bank0"   ? static_cast<unsigned char>(32 * (r & 7))
        : (r & 1) != 0      ? 0
                            : static_cast<unsigned char>(r >> 1);
  }
}

std::vector<std::pair<std::string, const void*>> kernels() {
  std::vector<std::pair<std::string, const void*>> out = {
      {"BASELINE", (const void*)hist_base::histogram_one_table},
      {"REFERENCE", (const void*)hist_sol::histogram256},
      {"per_warp_lesson", (const void*)hist_base::histogram_per_warp}};
  for (const CorpusEntry& c : kCorpus) out.push_back({c.name, c.kernel});
  return out;
}

/// "ok" or what is wrong, at every correctness size and at the timing size against the
/// baseline's output there.
std::string check(const course::ExerciseSpec& e, const void* k, const Job& big_base_out) {
  std::string error;
  for (const course::Size& s : e.sizes) {
    Job j = make_job(e.workload, s, e.workload.launch(s), 7);
    Job want = j;
    e.workload.reference(s, want.buffers);
    if (!run_once(k, j, &error)) return s.label + ": " + error;
    const std::string msg = compare_outputs(e.workload, j, want);
    if (!msg.empty()) return s.label + ": " + msg;
  }
  Job big = make_job(e.workload, e.gpu_timing_size, e.workload.launch(e.gpu_timing_size), 11);
  if (!run_once(k, big, &error)) return e.gpu_timing_size.label + ": " + error;
  const std::string msg = compare_outputs(e.workload, big, big_base_out);
  return msg.empty() ? "ok" : e.gpu_timing_size.label + " vs the baseline: " + msg;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "time";
  const course::ExerciseSpec& e = *course::find_exercise("10");
  std::string error;
  if (mode == "profile") {
    const course::Size s = e.sizes[0];
    for (const auto& [name, k] : kernels()) {
      if (name != "BASELINE" && name != "REFERENCE") continue;
      Job j = make_job(e.workload, s, e.workload.launch(s), 11);
      std::printf("profile %s %s\n", name.c_str(), s.label.c_str());
      if (!run_once(k, j, &error)) std::printf("FAILED %s: %s\n", name.c_str(), error.c_str());
    }
    return 0;
  }
  cudaDeviceProp prop;
  COURSE_CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  const course::Size s = e.gpu_timing_size;
  if (mode == "bytes") {
    std::printf("# %s, %d SMs: exercise 10's kernels on five kinds of bytes, %s\n", prop.name,
                prop.multiProcessorCount, s.label.c_str());
    std::printf("%-8s %12s %12s %12s %10s\n", "bytes", "one table", "per warp", "per lane",
                "speed-up");
    for (const char* kind : {"image", "skewed", "uniform", "bank0", "zero"}) {
      Job j = make_job(e.workload, s, e.workload.launch(s), 11);
      set_bytes(j, kind);
      const double one = time_ms((const void*)hist_base::histogram_one_table, j);
      const double warp = time_ms((const void*)hist_base::histogram_per_warp, j);
      const double sol = time_ms((const void*)hist_sol::histogram256, j);
      std::printf("%-8s %9.4f ms %9.4f ms %9.4f ms %9.3fx\n", kind, one, warp, sol, one / sol);
    }
    return 0;
  }
  std::printf("# %s, %d SMs: exercise 10 at %s, median of 15 (L2 flushed), seed 11\n", prop.name,
              prop.multiProcessorCount, s.label.c_str());
  const Job job = make_job(e.workload, s, e.workload.launch(s), 11);
  Job base_out = job;
  const void* base = kernels()[0].second;
  if (!run_once(base, base_out, &error)) std::printf("FAILED baseline: %s\n", error.c_str());
  const double base_ms = time_ms(base, job);
  const course::GpuGate* gate = e.thresholds.gpu_gate(prop.name);
  for (const auto& [name, k] : kernels()) {
    const std::string verdict = check(e, k, base_out);
    const bool timed = verdict == "ok" || verdict.find("vs the baseline") != std::string::npos;
    const double ms = timed ? time_ms(k, job) : -1.0;
    std::printf("time %-28s %9.4f ms  %6.3fx  gate %.2f  %s\n", name.c_str(), ms,
                ms > 0 ? base_ms / ms : 0.0, gate != nullptr ? gate->min_ratio : 0.0,
                verdict.substr(0, 150).c_str());
    std::fflush(stdout);
  }
  return 0;
}
