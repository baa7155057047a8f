// sanitizer_reader.cpp - compute-sanitizer for the GPU backend: its command line over the
// worker, and its log read as problems (kinds named as banksim names them).
#include <fmt/format.h>

#include <algorithm>
#include <regex>
#include <sstream>

#include "backend_internal.hpp"

namespace grader::internal {

std::vector<protocol::Issue> sanitizer_issues(const std::string& text, const std::string& tool) {
  std::vector<protocol::Issue> issues;
  // "ERROR SUMMARY: 1 error", "RACECHECK SUMMARY: 2 hazards displayed (2 errors, 0 warnings)":
  // any non-zero count of errors or hazards is a finding.
  static const std::regex summary(R"((\d+) (errors?|hazards?)\b)");
  bool found = false;
  for (std::sregex_iterator it(text.begin(), text.end(), summary), end; it != end; ++it) {
    if ((*it)[1].str() != "0") found = true;
  }
  if (!found) return issues;
  static const std::regex where(R"(in (\S+):(\d+))");
  std::smatch m;
  std::string message;
  int line = 0;
  std::istringstream in(text);
  std::string l;
  int kept = 0;
  while (std::getline(in, l) && kept < 4) {
    if (l.rfind("========= ", 0) != 0 || l.find("COMPUTE-SANITIZER") != std::string::npos) continue;
    const std::string body = l.substr(10);
    if (body.find_first_not_of(' ') == std::string::npos ||
        body.find("SUMMARY") != std::string::npos) {
      continue;
    }
    if (line == 0 && std::regex_search(body, m, where)) line = std::stoi(m[2].str());
    message += (message.empty() ? "" : " | ") + body.substr(body.find_first_not_of(' '));
    ++kept;
  }
  // The kind, as banksim names the same problem.
  std::string kind = "out_of_bounds";
  if (tool == "racecheck") kind = "race";
  if (tool == "initcheck") kind = "uninitialized_read";
  if (tool == "synccheck") kind = "barrier_divergence";
  std::string lower = message;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (tool == "memcheck" && lower.find("misaligned") != std::string::npos) kind = "misaligned";
  issues.push_back({kind, protocol::Severity::kError, "", line, 0,
                    "compute-sanitizer " + tool + ": " + message});
  return issues;
}

std::vector<std::string> sanitizer_argv(const std::string& tool, const std::string& worker,
                                        const std::string& dir, bool padding) {
  std::vector<std::string> argv = {"compute-sanitizer", "--tool", tool, "--print-limit", "5"};
  if (padding && tool == "memcheck") argv.insert(argv.end(), {"--padding", "1048576"});
  // The findings come from the tool's log; the worker's report goes nowhere. Without
  // --report-fd the worker stops at its usage line and the tool checks nothing (df48cca-fda6977).
  argv.insert(argv.end(), {worker, dir, "--report-fd", "-1", "--once"});
  return argv;
}

std::vector<protocol::Issue> sanitizer_unfinished(const std::string& text, const std::string& tool,
                                                  bool timed_out, int exit_status,
                                                  int wall_seconds) {
  static const std::regex summary(R"(SUMMARY: \d+ (errors?|hazards?)\b)");
  if (!timed_out && std::regex_search(text, summary)) return {};
  std::string tail = text.size() > 300 ? text.substr(text.size() - 300) : text;
  std::replace(tail.begin(), tail.end(), '\n', ' ');
  const std::string why =
      timed_out
          ? fmt::format("did not finish in {} s", wall_seconds)
          : fmt::format("stopped without its summary (exit status {}): {}", exit_status, tail);
  return {{"unchecked", protocol::Severity::kError, "", 0, 0,
           "compute-sanitizer " + tool + " " + why + ", so the kernel could not be checked for " +
               (tool == "racecheck"   ? "races"
                : tool == "initcheck" ? "uninitialised reads"
                : tool == "synccheck" ? "divergent barriers"
                                      : "out-of-bounds accesses") +
               " (a kernel far slower than the reference can cause this: try the reference's "
               "sizes locally with compute-sanitizer)"}};
}

}  // namespace grader::internal
