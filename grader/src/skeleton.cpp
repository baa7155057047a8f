// skeleton.cpp - see grader/skeleton.hpp.
#include "grader/skeleton.hpp"

#include <fstream>
#include <regex>
#include <sstream>

#include "course/registry.hpp"

namespace grader {
namespace fs = std::filesystem;
using course::exercises;
using course::ExerciseSpec;

SkeletonResult make_skeleton(const std::string& solution, const std::string& label) {
  static const std::regex begin(R"(^(\s*)// BEGIN SOLUTION (ex\d+\.\d+): (.*)$)");
  static const std::regex skel(R"(^\s*// SKELETON: ?(.*)$)");
  static const std::regex end(R"(^\s*// END SOLUTION\s*$)");
  SkeletonResult r;
  std::istringstream in(solution);
  std::string line;
  int n = 0;
  bool inside = false;
  int begin_line = 0;
  std::string indent;
  std::string id;
  std::vector<std::string> skeleton_lines;
  std::ostringstream out;
  while (std::getline(in, line)) {
    ++n;
    std::smatch m;
    if (std::regex_match(line, m, begin)) {
      if (inside)
        r.errors.push_back(label + ":" + std::to_string(n) +
                           ": BEGIN SOLUTION inside another block (line " +
                           std::to_string(begin_line) + ")");
      inside = true;
      begin_line = n;
      indent = m[1].str();
      id = m[2].str();
      skeleton_lines.clear();
      // Every TODO says how much to write: "... (~N lines)" ends the marker, on its one line.
      static const std::regex budget(R"(.*\(~\d+ lines?\)\s*$)");
      if (!std::regex_match(m[3].str(), budget)) {
        r.errors.push_back(label + ":" + std::to_string(n) + ": BEGIN SOLUTION " + id +
                           " has no line budget: end the marker line with \"(~N lines)\"");
      }
      out << indent << "// TODO(" << id << "): " << m[3].str() << "\n";
      ++r.blocks;
    } else if (std::regex_match(line, m, end)) {
      if (!inside) {
        r.errors.push_back(label + ":" + std::to_string(n) +
                           ": END SOLUTION without BEGIN SOLUTION");
        continue;
      }
      if (skeleton_lines.empty()) skeleton_lines.push_back("course_todo(\"TODO(" + id + ")\");");
      for (const auto& s : skeleton_lines) out << indent << s << "\n";
      inside = false;
    } else if (inside) {
      if (std::regex_match(line, m, skel)) skeleton_lines.push_back(m[1].str());
    } else {
      out << line << "\n";
    }
  }
  if (inside) {
    r.errors.push_back(label + ":" + std::to_string(begin_line) +
                       ": BEGIN SOLUTION without END SOLUTION");
  }
  r.text = out.str();
  return r;
}

GeneratedSkeletons generate_skeletons(const fs::path& root) {
  GeneratedSkeletons g;
  for (const ExerciseSpec& e : exercises()) {
    const fs::path sol = root / "solutions" / e.slug / e.file;
    std::ifstream in(sol);
    if (!in) {
      g.errors.push_back(sol.string() + ": missing solution file (the skeletons are generated " +
                         "from solutions/: run this from the instructors' course checkout)");
      continue;
    }
    std::ostringstream text;
    text << in.rdbuf();
    SkeletonResult s = make_skeleton(text.str(), sol.string());
    for (const auto& err : s.errors) g.errors.push_back(err);
    if (s.blocks == 0) g.errors.push_back(sol.string() + ": no BEGIN SOLUTION block");
    const std::string rel = e.slug + "/" + e.file;
    std::ifstream current(root / "exercises" / rel);
    std::ostringstream have;
    if (current) have << current.rdbuf();
    if (!current) {
      g.differs.push_back("exercises/" + rel + " is missing; the generated skeleton is used");
    } else if (have.str() != s.text) {
      g.differs.push_back("exercises/" + rel +
                          " differs from the skeleton generated from solutions/" + rel +
                          " (edited by hand, or `make skeletons` not run since solutions/ " +
                          "changed): the generated skeleton is used, exercises/ is left as it is");
    }
    g.files.emplace_back(rel, std::move(s.text));
  }
  return g;
}

GeneratedSkeletons write_skeletons(const fs::path& root, const fs::path& out) {
  GeneratedSkeletons g = generate_skeletons(root);
  for (const auto& [rel, text] : g.files) {
    const fs::path f = out / rel;
    fs::create_directories(f.parent_path());
    std::ofstream o(f, std::ios::binary);
    o << text;
    if (!o) g.errors.push_back(f.string() + ": cannot write (is the folder writable?)");
  }
  return g;
}

std::vector<std::string> sync_skeletons(const fs::path& root, bool write) {
  std::vector<std::string> report;
  for (const ExerciseSpec& e : exercises()) {
    const fs::path sol = root / "solutions" / e.slug / e.file;
    const fs::path ex = root / "exercises" / e.slug / e.file;
    std::ifstream in(sol);
    if (!in) {
      report.push_back(sol.string() + ": missing solution file");
      continue;
    }
    std::ostringstream text;
    text << in.rdbuf();
    const SkeletonResult s = make_skeleton(text.str(), sol.string());
    for (const auto& err : s.errors) report.push_back(err);
    if (s.blocks == 0) report.push_back(sol.string() + ": no BEGIN SOLUTION block");
    std::ifstream current(ex);
    std::ostringstream have;
    if (current) have << current.rdbuf();
    if (current && have.str() == s.text) continue;
    if (write) {
      fs::create_directories(ex.parent_path());
      std::ofstream(ex) << s.text;
      report.push_back("wrote " + ex.string());
    } else {
      report.push_back(ex.string() + (current ? " is out of date" : " is missing") +
                       ": run `make skeletons` after editing " + sol.string());
    }
  }
  // README's course table: one row per exercise, the lesson's title from its first heading.
  std::string table = "| lesson | exercise (`make grade EXERCISE=NN`) |\n|---|---|\n";
  for (const ExerciseSpec& e : exercises()) {
    std::ifstream lesson(root / "lessons" / e.slug / "README.md");
    std::string heading;
    std::getline(lesson, heading);
    heading = heading.substr(heading.find_first_not_of("# "));
    heading = heading.substr(0, heading.find(" {#"));
    table += "| [" + heading + "](lessons/" + e.slug + "/README.md) | " + e.summary + " |\n";
  }
  const fs::path readme = root / "README.md";
  std::ifstream rin(readme);
  std::ostringstream all;
  all << rin.rdbuf();
  std::string text = all.str();
  const std::string begin = "<!-- course-table: generated";
  const std::string end = "<!-- course-table: end -->";
  const auto b = text.find(begin);
  const auto e = text.find(end);
  if (b == std::string::npos || e == std::string::npos || e < b) {
    report.push_back(readme.string() + ": the course-table markers are missing");
    return report;
  }
  const auto body = text.find('\n', b) + 1;
  if (text.compare(body, e - body, table) != 0) {
    if (write) {
      text.replace(body, e - body, table);
      std::ofstream(readme) << text;
      report.push_back("wrote the course table of " + readme.string());
    } else {
      report.push_back(readme.string() + ": the course table is out of date: run `make skeletons`");
    }
  }
  return report;
}

}  // namespace grader
