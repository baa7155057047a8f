// nvcc-compile-all: skip (it includes corpus.inc, which run.sh generates from tests/students)
// measure.cu - checks, times and profiles the kernels of exercises 09 and 10 on a GPU without the
// grader: baseline, solution and every corpus variant (tests/students/09|10, via corpus.inc from
// gen-corpus.sh). `time EX [NAME...]`: each kernel checked against the CPU reference at the
// exercise's sizes, then timed at its GPU timing size as the grader times (gpu/harness.cuh:
// median of 15, L2 flushed, fresh inputs) against the baseline; `bytes`: the histogram kernels
// on three kinds of bytes; `profile`: every kernel launched once at sizes[0], for ncu.
// Built and run by run.sh beside it (from the repository root):
//   gen-corpus.sh > corpus.inc; nvcc -O3 -std=c++17 -arch=sm_90 -lineinfo -I. -I$HERE -Igpu
//       -Igpu/include -Iregistry/include $HERE/measure.cu registry/src/registry.cpp -o measure
#include <cuda_runtime.h>

#include <algorithm>
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

struct CorpusEntry {
  const char* exercise;
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

/// A launch of lesson 10's bin_updates: `blocks` x `threads`, lane t on bin t * stride mod 256.
Job bins_job(unsigned blocks, unsigned threads, int stride, int rounds) {
  Job j;
  j.grid = dim3(blocks);
  j.block = dim3(threads);
  j.buffers = {std::vector<unsigned char>(blocks * 32 * 4)};
  j.args = {JobArg{0, 0}, JobArg{-1, stride}, JobArg{-1, rounds}};
  return j;
}

/// Kernels that may stop the GPU (an access past the end of shared memory): run last, and in
/// `time` mode only when named.
bool risky(const std::string& name) {
  return name == "array_not_grown";
}

/// The kernels of one exercise: baseline, solution, then the corpus (NAME filters it).
std::vector<std::pair<std::string, const void*>> kernels_of(const std::string& ex) {
  std::vector<std::pair<std::string, const void*>> out;
  if (ex == "09") {
    out = {{"BASELINE", (const void*)scan_base::scan_blocks_blelloch},
           {"REFERENCE", (const void*)scan_sol::scan_blocks}};
  } else {
    out = {{"BASELINE", (const void*)hist_base::histogram_one_table},
           {"REFERENCE", (const void*)hist_sol::histogram256},
           {"per_warp_lesson", (const void*)hist_base::histogram_per_warp}};
  }
  for (const CorpusEntry& c : kCorpus) {
    if (ex == c.exercise) out.push_back({c.name, c.kernel});
  }
  // A shared-memory overrun can stop the GPU for the rest of the process: last.
  std::stable_partition(out.begin(), out.end(), [](const auto& k) { return !risky(k.first); });
  return out;
}

/// "ok" or what is wrong, at every correctness size of `e` and at its timing size against the
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
  std::string error;
  if (mode == "profile") {
    // `profile main`: the lessons' reductions, the baselines, the solutions and lesson 10's
    // per-warp tables; `profile corpus`: the corpus variants.
    const bool corpus = argc > 2 && std::strcmp(argv[2], "corpus") == 0;
    if (!corpus) {  // reductions: 2^20 floats, blocks of 256 (the lesson's kernels)
      Job red;
      red.grid = dim3(4096);
      red.block = dim3(256);
      red.buffers = {std::vector<unsigned char>(4096 * 4),
                     std::vector<unsigned char>((1 << 20) * 4)};
      red.args = {JobArg{0, 0}, JobArg{1, 0}, JobArg{-1, 1 << 20}};
      for (const void* k :
           {(const void*)reduce::reduce_interleaved, (const void*)reduce::reduce_sequential,
            (const void*)reduce::reduce_interleaved_padded}) {
        if (!run_once(k, red, &error)) std::printf("FAILED reduce: %s\n", error.c_str());
      }
      for (int stride : {0, 1, 8, 32}) {  // one warp, 4 rounds
        Job j = bins_job(1, 32, stride, 4);
        std::printf("profile bin_updates stride=%d\n", stride);
        std::fflush(stdout);
        if (!run_once((const void*)hist_base::bin_updates, j, &error)) {
          std::printf("FAILED bin_updates: %s\n", error.c_str());
        }
      }
    }
    // Risky kernels last of all (an overrun stops the GPU for the rest of the process).
    for (const bool last : {false, true}) {
      for (const char* ex : {"09", "10"}) {
        const course::ExerciseSpec& e = *course::find_exercise(ex);
        const course::Size s = e.sizes[0];
        for (const auto& [name, k] : kernels_of(ex)) {
          const bool main_kernel =
              name == "BASELINE" || name == "REFERENCE" || name == "per_warp_lesson";
          if (main_kernel == corpus || risky(name) != last) continue;
          Job j = make_job(e.workload, s, e.workload.launch(s), 11);
          std::printf("profile %s %s\n", ex, name.c_str());
          std::fflush(stdout);
          if (!run_once(k, j, &error)) {
            std::printf("FAILED %s %s: %s\n", ex, name.c_str(), error.c_str());
          }
        }
      }
    }
    return 0;
  }
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);
  if (mode == "bytes") {
    const course::ExerciseSpec& e = *course::find_exercise("10");
    const course::Size s = e.gpu_timing_size;
    std::printf("# %s, %d SMs: exercise 10's kernels on three kinds of bytes\n", prop.name,
                prop.multiProcessorCount);
    for (const char* kind : {"skewed", "uniform", "zero"}) {
      Job j = make_job(e.workload, s, e.workload.launch(s), 11);
      set_bytes(j, kind);
      const double one = time_ms((const void*)hist_base::histogram_one_table, j);
      const double warp = time_ms((const void*)hist_base::histogram_per_warp, j);
      const double sol = time_ms((const void*)hist_sol::histogram256, j);
      std::printf("bytes %s %-7s one table %.4f ms, per warp %.4f ms, per lane %.4f ms\n",
                  s.label.c_str(), kind, one, warp, sol);
    }
    // One warp instruction of 32 atomics, four ways: one word, 32 banks, 8 words per bank.
    const int rounds = 1024;
    const unsigned blocks = 4 * prop.multiProcessorCount;
    for (int stride : {0, 1, 2, 8, 32}) {
      const Job j = bins_job(blocks, 512, stride, rounds);
      const double ms = time_ms((const void*)hist_base::bin_updates, j);
      std::printf(
          "bins stride %2d: %.4f ms, %.3f ns per warp atomic per SM\n", stride, ms,
          ms * 1e6 / (static_cast<double>(blocks) * 16 * rounds / prop.multiProcessorCount));
    }
    return 0;
  }
  const std::string ex = argc > 2 ? argv[2] : "09";
  const course::ExerciseSpec& e = *course::find_exercise(ex);
  const course::Size s = e.gpu_timing_size;
  const Job job = make_job(e.workload, s, e.workload.launch(s), 11);
  Job base_out = job;
  const void* base = kernels_of(ex)[0].second;
  if (!run_once(base, base_out, &error)) std::printf("FAILED baseline: %s\n", error.c_str());
  const double base_ms = time_ms(base, job);
  for (const auto& [name, k] : kernels_of(ex)) {
    bool wanted = argc <= 3 && !risky(name);
    for (int i = 3; i < argc; ++i) wanted = wanted || name == argv[i];
    if (!wanted) continue;
    const std::string verdict = check(e, k, base_out);
    const double ms =
        verdict.rfind("ok", 0) == 0 || verdict.find("vs the baseline") != std::string::npos
            ? time_ms(k, job)
            : -1.0;
    std::printf("time %s %-28s %s %9.4f ms  %6.3fx  %s\n", ex.c_str(), name.c_str(),
                s.label.c_str(), ms, ms > 0 ? base_ms / ms : 0.0, verdict.substr(0, 150).c_str());
    std::fflush(stdout);
  }
  return 0;
}
