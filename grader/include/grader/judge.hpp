// grader/judge.hpp - grading one exercise of one submission: build, correctness on several
// sizes with a secret seed and poisoned outputs, problems, conflicts, speed, anti-bypass. The
// judge computes every verdict itself from the validated reports a Backend returns; each gate is
// one small function of grader/src/gates.cpp, listed in one table.
/// \file
/// Grading one exercise of one submission: the gates, their verdicts and scores.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "grader/backend.hpp"

/// The autograder: submission policy, sandbox, backends, the judge and its reports.
namespace grader {

/// The gates, in the order they are judged and shown. correct and no_problems are preconditions
/// of the gates after them, and uses_shared of conflicts and speed: a kernel that bypasses the
/// shared-memory path earns neither its conflict-freedom nor its speed.
enum class GateId { kBuilds, kCorrect, kNoProblems, kUsesShared, kConflicts, kSpeed };

/// "builds", "correct", "no_problems", "conflicts", "speed", "uses_shared".
const char* gate_name(GateId id);

/// The points `spec` gives gate `id`.
int gate_points(const ExerciseSpec& spec, GateId id);

/// One gate of one exercise.
struct Gate {
  GateId id = GateId::kBuilds;  ///< which gate
  std::string name;             ///< gate_name(id)
  int score = 0;                ///< max_score when passed, else 0
  int max_score = 0;            ///< the points the exercise gives this gate
  bool passed = false;          ///< the gate passed
  bool skipped = false;         ///< not evaluated (an earlier gate failed, or not applicable)
  std::string reason;           ///< one line: why it failed / what it measured
  std::string detail;  ///< more (compiler output, bank diagram) for VERBOSE and results.json
};

/// The verdict on one exercise of one submission: every gate, in order, and the table's figures.
struct ExerciseResult {
  const ExerciseSpec* spec = nullptr;  ///< the exercise graded
  std::string mode;                    ///< the backend's name: cpu / gpu
  bool timed = false;       ///< the speed gate timed kernels (else: the bank model's ratio)
  std::vector<Gate> gates;  ///< its gates in GateId order (host exercises: builds, correct)
  double seconds = 0.0;     ///< wall-clock time grading took
  /// Figures for the table: the conflicts gate's worst access ("32-way at line 27", "none
  /// (baseline 32-way)") and the speed-up.
  std::string conflicts_summary;
  std::string speedup_summary;  ///< the speed gate's summary, "-" when it has none
  /// Labels of the sizes drawn from the secret seed ("n=19"): platforms hide them until the
  /// due date (a student who saw them could special-case them).
  std::vector<std::string> secret_sizes;
  /// The student's kernel time at the timed size, ms (GPU mode; -1 otherwise): leaderboards.
  double kernel_ms = -1.0;
  /// Sum of the gates' scores.
  int score() const;
  /// Sum of the gates' max_score.
  int max_score() const;
  /// The gate called `name` (see gate_name()), or nullptr.
  const Gate* gate(const std::string& name) const;
};

/// How grade_exercise() grades.
struct JudgeOptions {
  std::uint64_t seed = 0;          ///< 0: a fresh secret seed from std::random_device
  bool verbose = false;            ///< add bank diagrams of the worst line
  std::filesystem::path work_dir;  ///< scratch space for worker requests
  /// How messages name the submission folder: the relative path the user gave ("exercises",
  /// "solutions"), so that a file reads "exercises/04-padding-transpose/transpose.cu:27"; empty
  /// (a class, an upload, an absolute path): files are named inside the submission,
  /// "04-padding-transpose/transpose.cu:27".
  std::filesystem::path shown_submission;
};

/// Grades `spec` for the submission folder `submission` (same layout as exercises/).
ExerciseResult grade_exercise(const ExerciseSpec& spec, const std::filesystem::path& submission,
                              const Backend& backend, const JudgeOptions& options);

}  // namespace grader
