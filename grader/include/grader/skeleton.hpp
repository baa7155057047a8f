// grader/skeleton.hpp - instructors write solutions once; the student's skeletons are generated
// from them. In a solution, a block (exNN.K names the exercise and the block)
//     // BEGIN SOLUTION exNN.K: declare the padded tile (~1 line)
//     __shared__ float tile[kTile][kTile + 1];
//     // SKELETON: __shared__ float tile[kTile][kTile];
//     // SKELETON: course_todo("TODO(exNN.K)");
//     // END SOLUTION
// becomes, in the skeleton,
//     // TODO(exNN.K): declare the padded tile (~1 line)
//     __shared__ float tile[kTile][kTile];
//     course_todo("TODO(exNN.K)");
// (`course_todo("TODO(exNN.K)");` alone when the block has no SKELETON lines): code that compiles
// and fails loudly when run.
/// \file
/// Generating the student's skeletons from the instructors' solutions (BEGIN/END SOLUTION blocks).
#pragma once

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace grader {

/// What make_skeleton() made of one solution file.
struct SkeletonResult {
  std::string text;  ///< the skeleton: each solution block replaced by its TODO and SKELETON lines
  int blocks = 0;    ///< BEGIN SOLUTION blocks found
  std::vector<std::string> errors;  ///< "file:line: BEGIN SOLUTION without END SOLUTION"
};

/// The skeleton of one solution file's text.
SkeletonResult make_skeleton(const std::string& solution, const std::string& label);

/// For every exercise: solutions/SLUG/FILE -> exercises/SLUG/FILE. With write = false,
/// only reports the files that are missing or out of date. Returns one line per such file (or per
/// error); empty when all is in sync.
std::vector<std::string> sync_skeletons(const std::filesystem::path& root, bool write);

/// The skeletons generated from root/solutions/, the same bytes sync_skeletons() writes into
/// exercises/: what bundles and the course site take, whatever exercises/ holds.
struct GeneratedSkeletons {
  std::vector<std::pair<std::string, std::string>> files;  ///< {"SLUG/FILE", skeleton text}
  std::vector<std::string> errors;   ///< a solution missing or malformed (file:line: ...)
  std::vector<std::string> differs;  ///< one line per exercises/ file that is not its skeleton
};

/// Generates every exercise's skeleton from root/solutions/ and compares it with root/exercises/.
GeneratedSkeletons generate_skeletons(const std::filesystem::path& root);

/// Writes generate_skeletons()'s files to out/SLUG/FILE (exercises/ and README.md untouched).
GeneratedSkeletons write_skeletons(const std::filesystem::path& root,
                                   const std::filesystem::path& out);

}  // namespace grader
