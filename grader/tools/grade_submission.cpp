// grade_submission.cpp - grading one submission folder: every selected exercise, results.json
// and the other formats.
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include <atomic>
#include <chrono>
#include <optional>
#include <thread>
#include "grade_cli.hpp"

#include "grader/grading_policy.hpp"
#include "grader/sandbox.hpp"

namespace grade_cli {

using nlohmann::json;

/// The calibration file the grader reads: --gates, else gpu-gates.json beside the grader's bin/.
fs::path gates_file(const Options& o) {
  return o.gates.empty() ? exe_dir().parent_path() / "gpu-gates.json" : o.gates;
}

std::vector<const grader::ExerciseSpec*> selected(const Options& o) {
  std::vector<const grader::ExerciseSpec*> out;
  if (o.exercise_ids.empty()) {
    for (const auto& e : grader::exercises()) out.push_back(&e);
    return out;
  }
  for (const auto& id : o.exercise_ids) {
    const std::string padded = id.size() == 1 ? "0" + id : id;
    const grader::ExerciseSpec* e = grader::find_exercise(padded);
    if (e == nullptr) {
      std::string ids;
      for (const auto& x : grader::exercises()) ids += (ids.empty() ? "" : ", ") + x.id;
      throw std::runtime_error("no exercise '" + id + "': the exercises are " + ids);
    }
    out.push_back(e);
  }
  return out;
}

/// An exercise the grader could not grade: every point lost, with the reason in the build gate.
grader::ExerciseResult not_graded(const grader::ExerciseSpec& spec, const grader::Backend& backend,
                                  const std::string& why) {
  grader::ExerciseResult er;
  er.spec = &spec;
  er.mode = backend.capabilities().name;
  er.timed = backend.capabilities().can_time;
  grader::Gate g;
  g.name = "builds";
  g.max_score = spec.points.total();
  g.reason = why;
  er.gates.push_back(g);
  er.conflicts_summary = er.speedup_summary = "-";
  return er;
}

/// The judge's options from the command line's, for a grading working in `work`.
grader::JudgeOptions judge_options(const Options& o, const fs::path& work, const fs::path& shown) {
  grader::JudgeOptions jo;
  jo.checker = o.checker;
  jo.baselines = o.baselines;
  jo.gate_row = o.gate_row;
  jo.seed = o.seed;
  jo.verbose = o.verbose;
  jo.keep_inputs = o.keep_inputs;
  jo.work_dir = fs::absolute(work);
  jo.shown_submission = shown;
  return jo;
}

/// Grades the submission folder `dir`. `shown` names it in messages (JudgeOptions::
/// shown_submission): the relative path a student typed, or empty (a class's students and uploads
/// know their files by their path inside the folder).
grader::SubmissionResult grade_submission(const fs::path& dir, const std::string& name,
                                          const std::vector<const grader::ExerciseSpec*>& list,
                                          const grader::Backend& backend, const Options& o,
                                          const fs::path& work, int jobs, const fs::path& shown,
                                          const ExerciseDone& done_one, std::size_t first) {
  const auto start = std::chrono::steady_clock::now();
  grader::SubmissionResult r;
  r.name = name;
  r.mode_description = backend.describe();
  r.facts = backend.facts();
  // The points and thresholds this grading used, so that a gradebook says what it measured.
  std::vector<std::string> ids;
  for (const auto* spec : list) ids.push_back(spec->id);
  r.facts["policy"] = grader::policy_json(ids);
  r.facts["isolation"] = o.no_sandbox ? "none (--no-sandbox)"
                         : grader::isolation() == grader::Isolation::kUid
                             ? "uid (no namespaces: own uid, rlimits, killed with its run)"
                             : "bubblewrap";
  if (!o.isolation_note.empty()) r.facts["isolation_fallback"] = o.isolation_note;
  if (o.gate_row != nullptr) r.facts["gate_row"] = o.gate_row->to_json();
  if (backend.capabilities().can_time) {
    r.facts["hybrid"] = o.checker != nullptr ? "banksim on the CPU at every size, then the GPU"
                                             : "GPU only (--gpu-only)";
  }
  const grader::JudgeOptions jo = judge_options(o, work, shown);
  fs::create_directories(work);
  // One submission's exercises run `jobs` at a time (a class runs its students in parallel
  // instead); results keep the registry's order.
  std::vector<std::optional<grader::ExerciseResult>> done(list.size());
  std::atomic<std::size_t> next{0};
  auto worker = [&]() {
    for (std::size_t n = next++; n < list.size(); n = next++) {
      const std::size_t i = (n + first) % list.size();
      const auto* spec = list[i];
      const auto exercise_start = std::chrono::steady_clock::now();
      try {
        done[i] = grader::grade_exercise(*spec, dir, backend, jo);
      } catch (const std::exception& e) {
        // The grader's own failure on one exercise must not lose the others.
        done[i] = not_graded(*spec, backend,
                             std::string("the grader could not grade this exercise: ") + e.what());
      }
      if (done_one) {
        done_one(*done[i],
                 std::chrono::duration<double>(std::chrono::steady_clock::now() - exercise_start)
                     .count());
      }
    }
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < std::min<int>(jobs, static_cast<int>(list.size())); ++t) {
    pool.emplace_back(worker);
  }
  worker();
  for (auto& t : pool) t.join();
  for (auto& e : done) r.exercises.push_back(std::move(*e));
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

void write_results(const grader::SubmissionResult& r, const fs::path& out, const Options& o) {
  fs::create_directories(out);
  // Student output can hold any bytes: invalid UTF-8 is replaced, never an exception.
  std::ofstream(out / "results.json") << grader::to_gradescope(r, o.hide_secret_sizes)
                                             .dump(2, ' ', false, json::error_handler_t::replace)
                                      << "\n";
  if (o.format.find("prairielearn") != std::string::npos) {
    std::ofstream(out / "prairielearn.json")
        << grader::to_prairielearn(r).dump(2, ' ', false, json::error_handler_t::replace) << "\n";
  }
  if (o.format.find("junit") != std::string::npos) {
    std::ofstream(out / "junit.xml") << grader::to_junit(r);
  }
}

}  // namespace grade_cli
