// grader/report.hpp - what grading produces: the terminal table, results.json in Gradescope's
// format, PrairieLearn's format, JUnit XML, and the class gradebook CSV.
/// \file
/// What grading produces: terminal table, Gradescope and PrairieLearn results, JUnit XML, gradebook
/// CSV.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "grader/judge.hpp"

namespace grader {

/// The grading of one submission: every exercise graded, and how.
struct SubmissionResult {
  std::string name;                       ///< the submission folder (a student, or "exercises")
  std::string mode_description;           ///< Backend::describe()
  nlohmann::json facts;                   ///< Backend::facts()
  std::vector<ExerciseResult> exercises;  ///< one per exercise graded
  double seconds = 0.0;                   ///< wall-clock time of the whole grading
  /// Sum of the exercises' scores.
  int score() const;
  /// Sum of the exercises' max_score().
  int max_score() const;
};

/// One exercise's line of a student's summary: its id in the registry and its points.
struct ExerciseScore {
  std::string id;     ///< the registry's exercise id ("04"), from the ExerciseSpec graded
  int score = 0;      ///< ExerciseResult::score()
  int max_score = 0;  ///< ExerciseResult::max_score()
};

/// A graded student's typed summary: what the class gradebook is built from. The grader writes
/// it from the SubmissionResult (into its own record beside results.json), so nothing is ever
/// parsed back out of results.json's test names or out of anything the student's code wrote.
struct StudentSummary {
  /// The layout's version: a summary of another version is not read (the student is regraded).
  static constexpr int kVersion = 1;
  int version = kVersion;                ///< the layout's version the summary was written with
  std::vector<ExerciseScore> exercises;  ///< one per exercise graded, in the order graded
  int score = 0;                         ///< SubmissionResult::score()
  int max_score = 0;                     ///< SubmissionResult::max_score()
  /// The line of exercise `id`, or nullptr when it was not graded.
  const ExerciseScore* find(const std::string& id) const;
};

/// The summary of a graded submission.
StudentSummary summarize(const SubmissionResult& r);
/// An exercise's line as JSON (nlohmann's to_json hook).
void to_json(nlohmann::json& j, const ExerciseScore& e);
/// Throws nlohmann::json::exception when a key is missing or of the wrong type.
void from_json(const nlohmann::json& j, ExerciseScore& e);
/// A student's summary as JSON, with its version (nlohmann's to_json hook).
void to_json(nlohmann::json& j, const StudentSummary& s);
/// Throws nlohmann::json::exception on a missing key or one of the wrong type, and
/// std::runtime_error on a summary of another version.
void from_json(const nlohmann::json& j, StudentSummary& s);

/// exercise | builds | correct | conflicts | speed-up | points, then one line per failed gate.
std::string render_table(const SubmissionResult& r, bool verbose);
/// Gradescope's results.json: score, execution_time, output, tests[], extra_data.
/// Gradescope's results.json. With hide_secret_sizes (course platforms), the sizes drawn from the
/// secret seed read "a secret size" in the visible tests, and one test per exercise, visible
/// after the due date, names them with what failed there.
nlohmann::json to_gradescope(const SubmissionResult& r, bool hide_secret_sizes = false);
/// PrairieLearn's results.json: gradable, score (0..1), message, output, tests[].
nlohmann::json to_prairielearn(const SubmissionResult& r);
/// JUnit XML, one testcase per gate.
std::string to_junit(const SubmissionResult& r);

}  // namespace grader
