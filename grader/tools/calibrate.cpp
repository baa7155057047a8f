// calibrate.cpp - `grade calibrate` (`make calibrate`): on a GPU box, times the baseline and the
// reference solution of every timed exercise (several runs, medians) and writes this GPU's row of
// the gate table into the calibration file the grader reads, keyed by the GPU's name and compute
// capability. Each threshold is the exercise's stated fraction (grader::calibration_fraction) of
// what the reference reaches here. Where the registry has a committed row for this GPU, both are
// shown with the tolerance they must agree within.
#include "calibrate.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <fstream>
#include <iostream>

#include "grader/gpu_gates.hpp"
#include "grader/judge.hpp"

namespace fs = std::filesystem;

namespace {

double median(std::vector<double> v) {
  if (v.empty()) return -1.0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

std::string today() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", std::gmtime(&t));
  return buf;
}

}  // namespace

int run_calibrate(const CalibrateOptions& o, const grader::Backend& backend,
                  const std::vector<const grader::ExerciseSpec*>& list) {
  const grader::Capabilities caps = backend.capabilities();
  if (!caps.can_time) {
    std::cerr << "grade calibrate: needs a GPU (MODE=gpu): the CPU model has no timings to "
                 "calibrate\n";
    return 2;
  }
  std::string error;
  auto table = grader::GateTable::load(o.gates_file, &error);
  if (!table) {
    std::cerr << "grade calibrate: " << error << "\n";
    return 2;
  }
  const auto start = std::chrono::steady_clock::now();
  grader::GateRow row;
  row.gpu = caps.gpu_name;
  row.compute_capability = caps.compute_capability;
  std::cout << fmt::format(
      "calibrating {} (compute capability {}): {} runs of each kernel, each "
      "the median of 15 timings\n",
      row.gpu, row.compute_capability, o.runs);
  std::cout << fmt::format("{:<4} {:>11} {:>11} {:>11} {:>9} {:>9} {:>10} {:>10}\n", "ex",
                           "base ms", "ref ms", "ceiling ms", "measured", "fraction", "min_ratio",
                           "committed");
  const auto committed = grader::committed_row(row.gpu, list);
  bool failed = false;
  for (const grader::ExerciseSpec* spec : list) {
    if (spec->kind != grader::ExerciseSpec::Kind::kKernel) continue;
    std::vector<double> base, ref, ceiling;
    for (int r = 0; r < o.runs; ++r) {
      const auto b = grader::time_at_timed_size(
          *spec, grader::course_root() / spec->baseline.file, spec->baseline.kernel, backend,
          o.work_dir / fmt::format("{}-baseline-{}", spec->slug, r));
      const auto s = grader::time_at_timed_size(
          *spec, grader::course_root() / "solutions" / spec->slug / spec->file, spec->kernel,
          backend, o.work_dir / fmt::format("{}-reference-{}", spec->slug, r));
      if (b.ms <= 0 || s.ms <= 0) {
        std::cerr << fmt::format("grade calibrate: exercise {}: {} could not be timed: {}\n",
                                 spec->id, b.ms <= 0 ? "the baseline" : "the reference solution",
                                 b.ms <= 0 ? b.error : s.error);
        failed = true;
        break;
      }
      base.push_back(b.ms);
      ref.push_back(s.ms);
      if (s.ceiling_ms > 0) ceiling.push_back(s.ceiling_ms);
    }
    if (base.size() != static_cast<std::size_t>(o.runs)) continue;
    const bool vs_baseline = spec->thresholds.reference == course::SpeedReference::kBaseline;
    const double ref_ms = vs_baseline ? median(base) : median(ceiling);
    if (ref_ms <= 0) {
      std::cerr << fmt::format("grade calibrate: exercise {}: {} could not be timed\n", spec->id,
                               course::to_string(spec->thresholds.reference));
      failed = true;
      continue;
    }
    const double measured = ref_ms / median(ref);
    const double fraction = grader::calibration_fraction(*spec);
    // Three decimals: a threshold is a stated number, not a float's noise.
    const double gate = std::round(fraction * measured * 1000.0) / 1000.0;
    row.min_ratio[spec->id] = gate;
    row.measured_ratio[spec->id] = std::round(measured * 10000.0) / 10000.0;
    std::string was = "-";
    if (committed) was = fmt::format("{:.3f}", committed->min_ratio.at(spec->id));
    std::cout << fmt::format(
        "{:<4} {:>11.4f} {:>11.4f} {:>11} {:>8.3f}x {:>9.3f} {:>10.3f} {:>10}\n", spec->id,
        median(base), median(ref), ceiling.empty() ? "-" : fmt::format("{:.4f}", median(ceiling)),
        measured, fraction, gate, was);
  }
  if (failed) {
    std::cerr << "grade calibrate: no row written: every exercise must be timed (see above)\n";
    return 1;
  }
  std::ifstream probe(o.gates_file);
  table->put(row);
  nlohmann::json j = table->to_json();
  // The measurement's facts, on the row written.
  for (auto& r : j["rows"]) {
    if (r["gpu"] == row.gpu && r["compute_capability"] == row.compute_capability) {
      const nlohmann::json facts = backend.facts();
      r["measured"] = today();
      r["driver"] = facts.value("driver", "");
      r["cuda"] = facts.value("cuda", "");
      r["runs"] = o.runs;
    }
  }
  fs::create_directories(fs::absolute(o.gates_file).parent_path());
  const fs::path tmp = o.gates_file.string() + ".tmp";
  std::ofstream(tmp) << j.dump(2) << "\n";
  fs::rename(tmp, o.gates_file);
  const double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cout << fmt::format("wrote the row of {} (compute capability {}) to {} in {:.0f} s\n",
                           row.gpu, row.compute_capability, o.gates_file.string(), secs);
  if (committed) {
    const auto differ = grader::rows_differ(row, *committed, grader::kCalibrationTolerance);
    std::cout << fmt::format("against the registry's committed row ({}): {}\n", committed->origin,
                             differ.empty() ? fmt::format("every threshold within {:.0f}%",
                                                          100 * grader::kCalibrationTolerance)
                                            : fmt::format("{} outside {:.0f}%", differ.size(),
                                                          100 * grader::kCalibrationTolerance));
    for (const auto& d : differ) std::cout << "  " << d << "\n";
  }
  return 0;
}
