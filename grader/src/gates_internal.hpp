// gates_internal.hpp - what the judge collected for one exercise (the evidence), and the gate
// functions that turn it into verdicts (gates.cpp). Not part of the API.
#pragma once

#include <chrono>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "grader/judge.hpp"

namespace grader::internal {

/// Everything the gates judge: the student's runs (one worker per size), the baseline's run at
/// sizes[0], the timings, and the expected outputs.
struct Evidence {
  const ExerciseSpec* spec = nullptr;
  Capabilities caps;
  JudgeOptions options;
  std::filesystem::path file;          ///< the student's file
  std::string shown;                   ///< its name in messages (JudgeOptions::shown_submission)
  std::vector<Size> sizes;             ///< spec->sizes, then the sizes drawn with the seed
  std::vector<WorkerOutcome> student;  ///< one per size (stops at the first that does not build)
  std::vector<Buffers> expected;       ///< per size
  std::vector<Buffers> inputs;         ///< per size
  bool have_baseline = false;
  WorkerOutcome baseline;  ///< at sizes[0], same inputs
  double student_ms = -1.0;
  double baseline_ms = -1.0;
  double ceiling_ms =
      -1.0;              ///< the exercise's ceiling (cudaMemcpy, cuBLAS), timed with the student
  std::string gpu_name;  ///< the GPU's name (picks the row of the GPU gate table)
  /// Where the backend times kernels: the outputs of both at gpu_timing_size, same inputs (a
  /// kernel that skips work at the timed size must not pass).
  Buffers timing_inputs;
  Buffers timing_student;
  Buffers timing_baseline;
  // Host exercises.
  std::vector<std::array<long long, 32>> host_cases;
  /// Where the time went (ExerciseResult::steps).
  std::vector<std::pair<std::string, double>> steps;
  /// Adds step `name`: the seconds since `since`, and the part of them `w` waited for the GPU.
  void step(const std::string& name, std::chrono::steady_clock::time_point since,
            double waited = 0.0) {
    steps.emplace_back(
        name, std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count());
    if (waited > 0) steps.emplace_back(name + " waiting for the GPU", waited);
  }
  /// The student's report of size k (an empty one when it sent none).
  const protocol::RunReport& run(std::size_t k) const;
  bool compiled() const;
};

/// A gate's verdict; `summary` feeds the result table (conflicts, speed-up).
struct Verdict {
  enum class State { kPass, kFail, kSkip } state = State::kSkip;
  std::string reason;
  std::string detail;
  std::string summary;
  static Verdict pass(std::string r) { return {State::kPass, std::move(r), "", ""}; }
  static Verdict fail(std::string r, std::string d = "") {
    return {State::kFail, std::move(r), std::move(d), ""};
  }
  static Verdict skip(std::string r) { return {State::kSkip, std::move(r), "", ""}; }
};

/// One row of the gate table: which gate, and the function judging it.
struct GateRule {
  GateId id;
  Verdict (*judge)(const Evidence&, const std::vector<Gate>& earlier);
};

/// The kernel exercises' gates, in order.
const std::vector<GateRule>& kernel_gates();
/// The host exercises' gates (builds, correct).
const std::vector<GateRule>& host_gates();

/// The last line of the child's output that names a TODO, a banksim message, or "".
std::string child_message(const WorkerOutcome& w);

}  // namespace grader::internal
