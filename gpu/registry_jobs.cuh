// gpu/registry_jobs.cuh - the registry's workloads as GPU jobs, and every case the GPU
// benchmarks time: each exercise's baseline, solution and variants at its bench size, and the
// lessons' demos. Shared by gpu/course_bench.cu (table and JSON) and gpu/bench_gpu.cu (Google
// Benchmark), so the two time and check the same things the same way.
/// \file
/// The registry's workloads as GPU jobs, and every case the GPU benchmarks time.
#pragma once

#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "course/registry.hpp"
#include "harness.cuh"
#include "kernel_table.hpp"

namespace course::gpu {

/// A job for `w` at size `s` with geometry `l`: inputs drawn from `seed`, outputs poisoned.
inline Job make_job(const Workload& w, const Size& s, const Launch& l, std::uint64_t seed) {
  Job job;
  job.grid = dim3(l.grid[0], l.grid[1], l.grid[2]);
  job.block = dim3(l.block[0], l.block[1], l.block[2]);
  job.smem = l.smem;
  for (const BufferSpec& b : w.buffers) job.buffers.emplace_back(b.count(s) * elem_bytes(b.elem));
  std::mt19937_64 rng(seed);
  w.make_inputs(s, job.buffers, rng);
  for (size_t j = 0; j < w.buffers.size(); ++j) {
    if (w.buffers[j].output) std::memset(job.buffers[j].data(), 0xff, job.buffers[j].size());
  }
  for (const ArgSpec& a : w.args) {
    job.args.push_back(a.buffer >= 0 ? JobArg{a.buffer, 0} : JobArg{-1, a.scalar(s)});
  }
  return job;
}

/// Compares the output buffers of `got` with `want` within the workload's tolerance; returns ""
/// or what is wrong ("3 of 1024 elements of `out` differ; the first is out[7] = nan, expected
/// 0.25").
/// GEMMs (Rate::kFlops) are compared by relative norm, ||got - want|| / ||want|| < 1e-5, as two
/// fp32 summation orders differ elementwise at large k.
inline std::string compare_outputs(const Workload& w, const Job& got, const Job& want) {
  for (size_t j = 0; j < w.buffers.size(); ++j) {
    if (!w.buffers[j].output) continue;
    if (w.rate == Rate::kFlops && w.buffers[j].elem == Elem::kF32) {
      const size_t n = got.buffers[j].size() / 4;
      const float* g = reinterpret_cast<const float*>(got.buffers[j].data());
      const float* r = reinterpret_cast<const float*>(want.buffers[j].data());
      double num = 0, den = 0;
      for (size_t i = 0; i < n; ++i) {
        num += (double{g[i]} - r[i]) * (double{g[i]} - r[i]);
        den += double{r[i]} * r[i];
      }
      const double rel = std::sqrt(num / (den > 0 ? den : 1.0));
      if (!(rel < 1e-5)) return "relative error " + std::to_string(rel) + " (needs < 1e-5)";
      continue;
    }
    const size_t eb = elem_bytes(w.buffers[j].elem);
    const size_t n = got.buffers[j].size() / eb;
    size_t wrong = 0, first = n;
    for (size_t i = 0; i < n; ++i) {
      double g = 0, r = 0;
      if (w.buffers[j].elem == Elem::kF64) {
        std::memcpy(&g, got.buffers[j].data() + i * 8, 8);
        std::memcpy(&r, want.buffers[j].data() + i * 8, 8);
      } else {
        float gf, rf;
        std::memcpy(&gf, got.buffers[j].data() + i * 4, 4);
        std::memcpy(&rf, want.buffers[j].data() + i * 4, 4);
        g = gf;
        r = rf;
      }
      if (!(std::isfinite(g) &&
            std::fabs(g - r) <= w.tolerance_abs + w.tolerance_rel * std::fabs(r))) {
        if (wrong++ == 0) first = i;
      }
    }
    if (wrong != 0) {
      return std::to_string(wrong) + " of " + std::to_string(n) + " elements of `" +
             w.buffers[j].name + "` differ (first at index " + std::to_string(first) + ")";
    }
  }
  return "";
}

/// One thing the benchmarks time.
struct Case {
  std::string group;                   ///< "ex04", "smem-stride"
  std::string name;                    ///< "transpose_tiled (solution)"
  std::string role;                    ///< baseline, solution, variant, demo
  KernelRef kernel;                    ///< the kernel timed
  const Workload* workload = nullptr;  ///< how it is called (the exercise's or demo's workload)
  Size size;                           ///< the size timed (or profiled)
  std::function<Launch(const Size&)> launch;  ///< the geometry for this kernel
  const ExerciseSpec* exercise = nullptr;     ///< null for demos
};

/// Every case, in registry order; `profile`: the small sizes (exercises' sizes[0], demos'
/// profile sizes) that Nsight Compute, compute-sanitizer and banksim see.
inline std::vector<Case> all_cases(bool profile) {
  std::vector<Case> out;
  for (const ExerciseSpec& e : exercises()) {
    if (e.kind != ExerciseSpec::Kind::kKernel) continue;
    const Size s = profile ? e.sizes[0] : e.bench_size;
    const std::string g = "ex" + e.id;
    out.push_back({g, e.baseline.kernel + " (baseline)", "baseline", e.baseline, &e.workload, s,
                   e.workload.launch, &e});
    out.push_back({g, e.kernel + " (solution)", "solution", e.solution(), &e.workload, s,
                   e.workload.launch, &e});
    for (const Variant& v : e.variants) {
      out.push_back({g, v.name, "variant", v.kernel, &e.workload, s,
                     v.launch ? v.launch : e.workload.launch, &e});
    }
  }
  for (const Demo& d : demos()) {
    for (const Variant& v : d.kernels) {
      for (const Size& s : profile ? d.profile_sizes : d.sizes) {
        out.push_back({d.name, v.name + " " + s.label, "demo", v.kernel, &d.workload, s,
                       v.launch ? v.launch : d.workload.launch, nullptr});
      }
    }
  }
  return out;
}

/// Checks the kernels of the cases: an exercise's kernel at its sizes[0] against the CPU
/// reference, and at the case's own size against the baseline's output on the GPU for the same
/// inputs (the baseline comes first in all_cases()). Demos have nothing to check.
class Checker {
 public:
  /// "" when right, else what is wrong.
  std::string check(const Case& c, const void* kernel) {
    if (c.exercise == nullptr) return "";
    const ExerciseSpec& e = *c.exercise;
    const Workload& w = *c.workload;
    std::string error;
    Job small = make_job(w, e.sizes[0], c.launch(e.sizes[0]), 7);
    Job want = small;
    w.reference(e.sizes[0], want.buffers);
    if (!run_once(kernel, small, &error)) return e.sizes[0].label + ": " + error;
    std::string msg = compare_outputs(w, small, want);
    if (!msg.empty()) return e.sizes[0].label + " vs the CPU reference: " + msg;
    Job big = make_job(w, c.size, c.launch(c.size), 11);
    if (!run_once(kernel, big, &error)) return c.size.label + ": " + error;
    auto it = baseline_.find(e.id);
    if (c.role == "baseline" || it == baseline_.end()) {
      baseline_[e.id] = std::move(big);
      return "";
    }
    msg = compare_outputs(w, big, it->second);
    return msg.empty() ? "" : c.size.label + " vs the baseline on the GPU: " + msg;
  }

 private:
  std::map<std::string, Job> baseline_;
};

}  // namespace course::gpu
