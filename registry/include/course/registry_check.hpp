// course/registry_check.hpp - what must hold for every entry of the registry, checked against
// the files of a checkout: the checklist of CONTRIBUTING.md ("Adding an exercise") as code. Used
// by tests/test_registry.cpp and `course-registry check`.
/// \file
/// What must hold for every registry entry, checked against the files of a checkout.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace course {

/// Every step of the checklist that does not hold under `root` (a checkout), one message each,
/// naming the exercise, the step and the file: empty when the registry and the files agree.
std::vector<std::string> check_registry(const std::filesystem::path& root);

}  // namespace course
