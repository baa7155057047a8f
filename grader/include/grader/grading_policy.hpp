// grader/grading_policy.hpp - the grading policy an instructor owns: each exercise's gate points
// and thresholds. The registry holds the defaults; a TOML file overrides them, read from
// `grade --policy FILE` or, without that option, from grading-policy.toml at the course's root
// (so the platform bundles, which copy the course, grade with it too). Every key is checked
// before grading starts: a wrong one stops the grader with "FILE:LINE: KEY must be ...".
//
//   [kernels.weights]            # every kernel exercise (02-08), before its own table
//   correct = 10
//   [exercises.04.weights]       # one exercise: builds correct no_problems uses_shared
//   speed = 30                   #   conflicts speed, non-negative integers
//   [exercises.04.thresholds]    # cpu_min_cost_ratio cpu_min_cost_ratio_clang
//   cpu_min_cost_ratio = 2.0     #   min_shared_fraction max_store_sectors_per_ideal
//   gpu = { "NVIDIA H200" = 1.9 }  # max_load_requests_vs_baseline, gpu (per GPU name prefix)
//
// The grader reads the exercises through grader::exercises(): the registry's table with the
// policy applied.
/// \file
/// The instructor's grading policy (gate points and thresholds per exercise), from a TOML file.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "course/registry.hpp"

namespace grader {

/// A policy file the grader refuses: what() is "FILE:LINE: KEY must be ...".
struct PolicyError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// The registry's exercises with the policy file at `file` applied; throws PolicyError naming the
/// file, line and key of the first thing wrong in it.
std::vector<course::ExerciseSpec> apply_policy_file(const std::filesystem::path& file,
                                                    std::vector<course::ExerciseSpec> exercises);

/// Makes `exercises` (from apply_policy_file) the table the grader grades with; `source` says
/// where it came from ("registry defaults", or the file's path). Call before grading starts.
void set_policy(std::vector<course::ExerciseSpec> exercises, std::string source);

/// The file the grader reads when no --policy is given: COURSE_ROOT/grading-policy.toml.
std::filesystem::path default_policy_file();

/// The exercises the grader grades with: the registry's, with the policy applied.
const std::vector<course::ExerciseSpec>& exercises();
/// The exercise with this id ("04") or slug in exercises(), or nullptr.
const course::ExerciseSpec* find_exercise(const std::string& id_or_slug);
/// Where the policy in force came from: "registry defaults" or the file's path.
const std::string& policy_source();

/// The policy in force for `ids` (all exercises when empty), as results.json's extra_data shows
/// it: {"source", "exercises": {"04": {"weights": {...}, "thresholds": {...}}}}.
nlohmann::json policy_json(const std::vector<std::string>& ids = {});

}  // namespace grader
