// hints.cpp - `grade hint NN --level K` (`make hint`): an exercise's hints, one more each level.
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "grade_cli.hpp"

#include "course/registry.hpp"

namespace grade_cli {

using nlohmann::json;

const char* const kHintNames[3] = {"a nudge", "the bank arithmetic", "the fix's shape"};

int print_hints(const std::string& hint_id, int hint_level) {
  const auto* e = course::find_exercise(hint_id.size() == 1 ? "0" + hint_id : hint_id);
  if (e == nullptr) {
    std::cerr << "grade hint: no exercise '" << hint_id << "' (see `grade list`)\n";
    return 2;
  }
  std::cout << fmt::format("Exercise {} — {}\n", e->id, e->title);
  for (int k = 0; k < hint_level && k < static_cast<int>(e->hints.size()); ++k) {
    std::cout << fmt::format("\nHint {} ({}): {}\n", k + 1, kHintNames[k],
                             e->hints[static_cast<std::size_t>(k)]);
  }
  if (hint_level < static_cast<int>(e->hints.size())) {
    std::cout << fmt::format("\nOne more: make hint EXERCISE={} LEVEL={}\n", e->id, hint_level + 1);
  }
  return 0;
}

}  // namespace grade_cli
