// resume.cpp - what lets a class run resume: the grading key, each student's fingerprint and
// the grader's record of the results it wrote (with the typed summary the gradebook reads).
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include <functional>
#include <sstream>
#include "grade_cli.hpp"

#include "grader/grading_policy.hpp"

namespace grade_cli {

using nlohmann::json;

/// What a result depends on besides the student's files: the grader's version and binary, the
/// exercise selection, every selected exercise's points, sizes and thresholds, mode and format.
std::string grading_key(const Options& o, const std::vector<const grader::ExerciseSpec*>& list) {
  std::string all = std::string(COURSE_VERSION) + "|" + o.mode + "|" + o.format + "|" +
                    (o.no_sandbox ? "nosandbox" : "sandbox");
  std::error_code ec;
  all += "|" + std::to_string(fs::file_size("/proc/self/exe", ec)) + "|" +
         std::to_string(fs::last_write_time(fs::read_symlink("/proc/self/exe", ec), ec)
                            .time_since_epoch()
                            .count());
  // The policy in force (points of every gate, every threshold): a changed weight re-grades.
  std::vector<std::string> ids;
  for (const auto* e : list) ids.push_back(e->id);
  all += "|" + grader::policy_json(ids).dump();
  for (const auto* e : list) {
    all += fmt::format("|{}:{}:{}/{}:{}:{}:{}", e->id, e->points.total(),
                       e->thresholds.cpu_min_cost_ratio, e->thresholds.cpu_min_cost_ratio_clang,
                       e->thresholds.gpu.empty() ? 0.0 : e->thresholds.gpu[0].min_ratio,
                       e->thresholds.min_shared_fraction, e->sizes.size());
    for (const auto& sz : e->sizes) all += "," + sz.label;
  }
  return all;
}

/// A fingerprint of a student's files and the grading key (for resuming a class). Reads at
/// most 4 MiB per file and 10,000 entries, never follows links (a link counts by its target's
/// name), and never throws: an unreadable entry counts by its name and error.
std::string fingerprint(const fs::path& dir, const std::string& key) {
  std::string all = key;
  std::vector<std::string> items;
  std::error_code ec;
  fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end;
  for (std::size_t n = 0; !ec && it != end && n < 10000; it.increment(ec), ++n) {
    const fs::path p = it->path();
    const std::string rel = p.lexically_relative(dir).string();
    if (it.depth() > 16) it.disable_recursion_pending();
    const fs::file_status st = it->symlink_status(ec);
    if (ec) {
      items.push_back(rel + "\x1f!" + ec.message());
      ec.clear();
      continue;
    }
    if (fs::is_symlink(st)) {
      items.push_back(rel + "\x1f->" + fs::read_symlink(p, ec).string());
      ec.clear();
    } else if (fs::is_regular_file(st)) {
      std::ifstream in(p, std::ios::binary);
      std::string data(std::size_t{4} << 20, '\0');
      in.read(data.data(), static_cast<std::streamsize>(data.size()));
      data.resize(static_cast<std::size_t>(in.gcount()));
      items.push_back(rel + "\x1f" + std::to_string(fs::file_size(p, ec)) + "\x1f" + data);
      ec.clear();
    }
  }
  std::sort(items.begin(), items.end());
  for (const auto& i : items) all += i + "\x1e";
  return fmt::format("{:016x}", std::hash<std::string>{}(all));
}

fs::path record_file(const fs::path& out) {
  return out / ".record";
}

std::string results_hash(const std::string& results_text) {
  return fmt::format("{:016x}", std::hash<std::string>{}(results_text));
}

void write_record(const fs::path& out, const Record& r) {
  const json j = {
      {"fingerprint", r.fingerprint}, {"results_hash", r.results_hash}, {"summary", r.summary}};
  const fs::path tmp = record_file(out).string() + ".tmp";
  std::ofstream(tmp, std::ios::binary) << j.dump(2) << "\n";
  fs::rename(tmp, record_file(out));
}

std::optional<Record> read_record(const fs::path& out, std::string& why) {
  const fs::path file = record_file(out);
  const std::string text = read_text(file);
  if (text.empty()) {
    why = file.string() + ": no record (the student was not graded, or the run was cut short)";
    return std::nullopt;
  }
  try {
    const json j = json::parse(text);
    Record r;
    j.at("fingerprint").get_to(r.fingerprint);
    j.at("results_hash").get_to(r.results_hash);
    j.at("summary").get_to(r.summary);
    return r;
  } catch (const std::exception& e) {
    // A record of an older grader (a line of text, or another summary version) is no record.
    why = file.string() + ": not a record this grader reads (" + e.what() + ")";
    return std::nullopt;
  }
}

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace grade_cli
