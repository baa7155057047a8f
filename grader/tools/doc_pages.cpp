// doc_pages.cpp - `grade docs-pages`: the course site's generated pages (exercises, gates and
// thresholds; for the instructor edition the solutions and grading specs), from the registry.
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include <map>
#include <sstream>
#include "grade_cli.hpp"

#include "course/registry.hpp"
#include "grader/grading_policy.hpp"
#include "grader/skeleton.hpp"

namespace grade_cli {

using nlohmann::json;

/// The course site's generated pages: the exercises (skeletons, gates, sizes) and, for the
/// instructor edition, the solutions and grading specs. From the exercise table, so they
/// cannot drift.
/// The site's page on the gates, their points and every exercise's thresholds, from the registry
/// (so it cannot drift from what the grader applies).
void write_grading_page(const fs::path& file) {
  std::ofstream g(file);
  const bool from_registry = grader::policy_source() == "registry defaults";
  g << "# How a submission is graded: gates, points and thresholds {#grading}\n\n"
       "Every exercise is earned gate by gate in this order. The same gates run "
       "in both modes: on a machine with an NVIDIA GPU (`make grade MODE=gpu`, the judge of truth) "
       "and without one (CPU mode: the kernel runs under banksim, the course's emulator). The "
       "report says which mode ran and why a gate was skipped. Numbers below are the grading "
       "policy in force when this page was built: "
    << (from_registry ? std::string("the registry's defaults (`registry/src/registry.cpp`)")
                      : "`" + fs::path(grader::policy_source()).filename().string() +
                            "` over the registry's defaults")
    << ", the same table the grader reads.\n\n"
       "| gate | what it checks | CPU mode | GPU mode |\n"
       "|---|---|---|---|\n"
       "| builds | the file compiles, and passes the submission policy (kernels, device "
       "functions, constants and types only) | clang, host code | nvcc, sm_90 |\n"
       "| correct | the output equals the CPU reference on every size, fresh random inputs "
       "each run, outputs poisoned beforehand so unwritten elements show | banksim | the GPU, "
       "also the timed run's output |\n"
       "| no problems | no race, out-of-bounds or misaligned access, read of shared memory "
       "nobody wrote, divergent barrier or warp primitive, crash | banksim's shadow memory | "
       "compute-sanitizer: memcheck, racecheck, synccheck, initcheck |\n"
       "| uses shared memory | the data really flows through shared memory (at least a share "
       "of the baseline's shared requests), and the global traffic the exercise's tiles exist to "
       "fix is fixed: the transposes' stores coalesced, both GEMM operands staged | banksim | "
       "Nsight Compute |\n"
       "| conflict-free | every shared-memory instruction at its ideal wavefronts (per "
       "instruction, not averaged per line) | banksim's bank model | Nsight Compute's "
       "per-instruction counters |\n"
       "| speed-up | faster than the conflicting baseline (or close enough to a stated "
       "ceiling: cudaMemcpy, cuBLAS) by the exercise's threshold | cost model: shared wavefronts, "
       "global sectors and warp shuffles | timed: median of 15, L2 flushed, same run as the "
       "reference |\n\n"
       "Host-code exercises (01) have two gates: builds and correct.\n\n"
       "**Points measure the fix.** Correct and no-problems are preconditions: a wrong or racy "
       "kernel keeps only its build points, however fast; the later gates are skipped (\"needs a "
       "correct kernel first\"). A kernel that bypasses shared memory, or the part of the "
       "exercise its tiles are for, fails uses-shared-memory, and conflict-free and speed-up are "
       "skipped with it: avoiding the conflict by not doing the exercise earns nothing. The "
       "report names the cause first and the failing size, which changes every run: learning it "
       "gains nothing.\n\n"
       "## Points per exercise {#grading-points}\n\n"
       "| exercise | builds | correct | no problems | uses shared memory | conflict-free | "
       "speed-up | total |\n|---|---|---|---|---|---|---|---|\n";
  for (const auto& e : grader::exercises()) {
    const course::Points& p = e.points;
    const bool host = e.kind == grader::ExerciseSpec::Kind::kHost;
    auto cell = [&](int v) { return host ? std::string("-") : std::to_string(v); };
    g << "| \\ref exercise-" << e.id << " \"" << e.id << "\" | " << p.builds << " | " << p.correct
      << " | " << cell(p.no_problems) << " | " << cell(p.uses_shared) << " | " << cell(p.conflicts)
      << " | " << cell(p.speed) << " | " << p.total() << " |\n";
  }
  g << "\nWith the registry's defaults the untouched skeleton scores 0; deleting the TODO "
       "line(s) and nothing else (the conflicting baseline the skeleton hands over) at most 10; a "
       "correct kernel that keeps the conflict at most 40; a correct conflict-free kernel below "
       "the speed gate 70 to 90; the solution 100 (`tests/test_grader.cpp`, \"points measure the "
       "fix\").\n\n"
       "## The instructor's grading policy {#grading-policy}\n\n"
       "The points and thresholds are the instructor's. A TOML file overrides the registry's "
       "defaults: `grading-policy.toml` at the course's root (read by `make grade` and by the "
       "`make gradescope`, `prairielearn` and `classroom` bundles, which copy it), or any file "
       "given with `make grade POLICY=FILE` (`grade --policy FILE`). Every results.json says "
       "which policy graded it (`extra_data.policy`). A key the grader does not know, or a value "
       "of the wrong kind, stops grading before it starts, naming the file, line and key "
       "(`grading-policy.toml:12: exercises.04.weights.speed must be a non-negative "
       "integer`).\n\n"
       "~~~{.toml}\n"
       "[kernels.weights]           # every kernel exercise (02-08), before its own table\n"
       "correct = 10                # builds correct no_problems uses_shared conflicts speed\n"
       "conflicts = 60\n\n"
       "[exercises.04.weights]      # one exercise\n"
       "speed = 30\n\n"
       "[exercises.04.thresholds]   # cpu_min_cost_ratio cpu_min_cost_ratio_clang\n"
       "cpu_min_cost_ratio = 2.0    # min_shared_fraction max_store_sectors_per_ideal\n"
       "gpu = { \"NVIDIA H200\" = 1.9 }  # max_load_requests_vs_baseline; gpu: per GPU name\n"
       "~~~\n\n"
       "## Thresholds per exercise {#grading-thresholds}\n\n"
       "The CPU speed gate is the baseline's modelled cost over yours; the GPU gate is measured "
       "time, the reference's over yours, on the GPU named (other GPUs fall back to the CPU "
       "model's gate, and the report says so).\n\n"
       "| exercise | sizes (first: the CPU speed size) | CPU speed gate | GPU speed gate | "
       "uses shared memory |\n|---|---|---|---|---|\n";
  for (const auto& e : grader::exercises()) {
    if (e.kind != grader::ExerciseSpec::Kind::kKernel) continue;
    std::string sizes;
    for (const auto& sz : e.sizes) sizes += (sizes.empty() ? "" : ", ") + sz.label;
    std::string gpu;
    for (const course::GpuGate& gate : e.thresholds.gpu) {
      gpu += (gpu.empty() ? "" : "<br>") + gate.gpu + ": " + fmt::format("{:g}", gate.min_ratio) +
             "x " +
             (e.thresholds.reference == course::SpeedReference::kBaseline
                  ? "the baseline"
                  : std::string(course::to_string(e.thresholds.reference))) +
             " (" + gate.source + ")";
    }
    g << "| \\ref exercise-" << e.id << " \"" << e.id << "\" | " << sizes << " | "
      << fmt::format("{:g}", e.thresholds.cpu_min_cost_ratio) << "x"
      << (e.thresholds.cpu_min_cost_ratio_clang > 0
              ? fmt::format(" ({:g}x with clang's widths)", e.thresholds.cpu_min_cost_ratio_clang)
              : std::string())
      << " | " << (gpu.empty() ? "CPU model's gate" : gpu) << " | "
      << fmt::format("{:g}", e.thresholds.min_shared_fraction) << " x the baseline's requests"
      << (e.thresholds.max_store_sectors_per_ideal > 0
              ? fmt::format("; global store sectors at most {:g} x the coalesced ideal",
                            e.thresholds.max_store_sectors_per_ideal)
              : std::string())
      << (e.thresholds.max_load_requests_vs_baseline > 0
              ? fmt::format("; global load requests at most {:g} x the baseline's",
                            e.thresholds.max_load_requests_vs_baseline)
              : std::string())
      << " |\n";
  }
  g << "\nWhere the thresholds come from, measured on an NVIDIA H200: the measurements pages "
       "under \\ref reference \"Reference\". Where CPU and GPU mode disagree the GPU is right; "
       "the known cases are listed in the student corpus (`tests/students/students.json`, "
       "`known_gap`).\n";
}

void write_doc_pages(const fs::path& dir, bool instructor) {
  fs::create_directories(dir);
  // The skeletons shown are the ones generated from solutions/ (what students get), never
  // exercises/ as an instructor's working tree happens to hold it. A student's copy has no
  // solutions/: there exercises/ is the course's own.
  std::map<std::string, std::string> generated;
  if (fs::is_directory(grader::course_root() / "solutions")) {
    auto g = grader::generate_skeletons(grader::course_root());
    if (!g.errors.empty()) {
      std::string all;
      for (const auto& l : g.errors) all += "\n  " + l;
      throw std::runtime_error("the skeletons cannot be generated from solutions/:" + all);
    }
    for (const auto& l : g.differs) std::cerr << "grade docs-pages: " << l << "\n";
    generated.insert(g.files.begin(), g.files.end());
  }
  std::ofstream ex(dir / "exercises.md");
  ex << "# Exercises {#exercises}\n\n"
        "Each exercise belongs to a lesson. Copy nothing: edit the file in `exercises/`, then run "
        "`make grade EXERCISE=NN`. Every exercise is worth 100 points; \\ref grading "
        "\"How a submission is graded\" explains the gates, their points and thresholds.\n\n";
  for (const auto& e : grader::exercises()) {
    ex << "## " << e.id << " — " << e.title << " {#exercise-" << e.id << "}\n\n";
    ex << "Lesson: \\ref lesson-" << e.id << " \"" << e.slug << "\". File: `exercises/" << e.slug
       << "/" << e.file << "`. Grade: `make grade EXERCISE=" << e.id << "`.\n\n";
    if (e.kind == grader::ExerciseSpec::Kind::kKernel) {
      std::string sizes;
      for (const auto& sz : e.sizes) sizes += (sizes.empty() ? "" : ", ") + sz.label;
      ex << "Checked on " << sizes << " with fresh random inputs each run. Points: builds "
         << e.points.builds << ", correct " << e.points.correct << ", no problems "
         << e.points.no_problems << ", conflict-free " << e.points.conflicts << ", speed-up "
         << e.points.speed << ", uses shared memory " << e.points.uses_shared << ".\n\n";
    } else {
      ex << "Checked on " << e.host_cases << " random warp requests against the course's bank "
         << "model. Points: builds " << e.points.builds << ", correct " << e.points.correct
         << ".\n\n";
    }
    if (const auto it = generated.find(e.slug + "/" + e.file); it != generated.end()) {
      ex << "```{." << fs::path(e.file).extension().string().substr(1) << "}\n"
         << it->second << "```\n\n";
    } else {
      ex << "\\include exercises/" << e.slug << "/" << e.file << "\n\n";
    }
    // Folded, one level at a time (the same as `make hint EXERCISE=NN LEVEL=k`).
    for (std::size_t k = 0; k < e.hints.size(); ++k) {
      // One line: Doxygen would close the block at a paragraph break.
      ex << "<details><summary>Hint " << k + 1 << ": " << kHintNames[k] << "</summary>"
         << e.hints[k] << "</details>\n\n";
    }
  }
  write_grading_page(dir / "grading.md");
  if (!instructor) return;
  std::ofstream so(dir / "solutions.md");
  so << "# Solutions and grading specs (instructor edition) {#solutions}\n\n"
        "Written once in `solutions/`; `make skeletons` turns the `BEGIN SOLUTION` blocks into "
        "the students' TODOs. The thresholds below come from the registry, "
        "`registry/src/registry.cpp`.\n\n";
  for (const auto& e : grader::exercises()) {
    so << "## " << e.id << " — " << e.title << " {#solution-" << e.id << "}\n\n";
    if (e.kind == grader::ExerciseSpec::Kind::kKernel) {
      so << "| spec | value |\n|---|---|\n";
      so << "| kernel | `" << e.kernel << "` |\n";
      so << "| baseline | `" << e.baseline.kernel << "` in `" << e.baseline.file << "` |\n";
      std::string sizes;
      for (const auto& sz : e.sizes) sizes += (sizes.empty() ? "" : ", ") + sz.label;
      so << "| sizes (first one measured) | " << sizes << " |\n";
      so << "| tolerance | abs " << e.workload.tolerance_abs << ", rel " << e.workload.tolerance_rel
         << " |\n";
      so << "| CPU speed gate (cost model: shared wavefronts + global sectors, vs the baseline) | "
            ">= "
         << e.thresholds.cpu_min_cost_ratio << "x"
         << (e.thresholds.cpu_min_cost_ratio_clang > 0
                 ? fmt::format(" ({:g}x with clang's widths)",
                               e.thresholds.cpu_min_cost_ratio_clang)
                 : std::string())
         << " |\n";
      for (const course::GpuGate& g : e.thresholds.gpu) {
        so << "| GPU speed gate on " << g.gpu << " (timed, "
           << (e.thresholds.reference == course::SpeedReference::kBaseline
                   ? "baseline ms / yours"
                   : std::string(course::to_string(e.thresholds.reference)) + " ms / yours")
           << ") | >= " << g.min_ratio << " (" << g.source << ") |\n";
      }
      so << "| shared requests floor | " << e.thresholds.min_shared_fraction << " x baseline |\n\n";
    }
    so << "\\include solutions/" << e.slug << "/" << e.file << "\n\n";
  }
}

}  // namespace grade_cli
