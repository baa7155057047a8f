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
