// report.cpp - tables and LMS formats of a graded submission.
#include "grader/report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <stdexcept>

namespace grader {
using nlohmann::json;

namespace {

std::string mark(const Gate* g) {
  if (g == nullptr || g->skipped) return "-";
  return g->passed ? "yes" : "NO";
}

std::string xml_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '&':
        out += "&amp;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string test_name(const ExerciseResult& e, const Gate& g) {
  return fmt::format("{} {}: {}", e.spec->id, e.spec->slug.substr(3), g.name);
}

}  // namespace

int SubmissionResult::score() const {
  int s = 0;
  for (const auto& e : exercises) s += e.score();
  return s;
}

int SubmissionResult::max_score() const {
  int s = 0;
  for (const auto& e : exercises) s += e.max_score();
  return s;
}

const ExerciseScore* StudentSummary::find(const std::string& id) const {
  for (const auto& e : exercises) {
    if (e.id == id) return &e;
  }
  return nullptr;
}

StudentSummary summarize(const SubmissionResult& r) {
  StudentSummary s;
  for (const ExerciseResult& e : r.exercises) {
    s.exercises.push_back({e.spec->id, e.score(), e.max_score()});
  }
  s.score = r.score();
  s.max_score = r.max_score();
  return s;
}

void to_json(json& j, const ExerciseScore& e) {
  j = {{"id", e.id}, {"score", e.score}, {"max_score", e.max_score}};
}

void from_json(const json& j, ExerciseScore& e) {
  j.at("id").get_to(e.id);
  j.at("score").get_to(e.score);
  j.at("max_score").get_to(e.max_score);
}

void to_json(json& j, const StudentSummary& s) {
  j = {{"version", s.version},
       {"exercises", s.exercises},
       {"score", s.score},
       {"max_score", s.max_score}};
}

void from_json(const json& j, StudentSummary& s) {
  j.at("version").get_to(s.version);
  if (s.version != StudentSummary::kVersion) {
    throw std::runtime_error(fmt::format("a summary of version {}, where this grader reads {}",
                                         s.version, StudentSummary::kVersion));
  }
  j.at("exercises").get_to(s.exercises);
  j.at("score").get_to(s.score);
  j.at("max_score").get_to(s.max_score);
}

std::string render_table(const SubmissionResult& r, bool verbose) {
  std::string out = fmt::format("Grading {} -- mode: {}\n\n", r.name, r.mode_description);
  out += fmt::format("{:<24} {:<6} {:<7} {:<26} {:<16} {:>7}\n", "exercise", "builds", "correct",
                     "conflicts (worst access)", "speed-up", "points");
  for (const ExerciseResult& e : r.exercises) {
    out += fmt::format("{:<24} {:<6} {:<7} {:<26} {:<16} {:>3}/{:<3}\n", e.spec->slug,
                       mark(e.gate("builds")), mark(e.gate("correct")), e.conflicts_summary,
                       e.speedup_summary, e.score(), e.max_score());
  }
  out += fmt::format("{:<24} {:<6} {:<7} {:<26} {:<16} {:>3}/{:<3}\n\n", "total", "", "", "", "",
                     r.score(), r.max_score());
  bool any = false;
  for (const ExerciseResult& e : r.exercises) {
    for (const Gate& g : e.gates) {
      if (g.passed || g.skipped) continue;
      any = true;
      out += fmt::format("{} {}: {}\n", e.spec->id, g.name, g.reason);
      if (verbose && !g.detail.empty()) out += g.detail + "\n";
    }
    if (verbose) {
      for (const Gate& g : e.gates) {
        if (g.passed && !g.detail.empty())
          out += fmt::format("{} {}:\n{}\n", e.spec->id, g.name, g.detail);
      }
    }
  }
  if (!any) out += "Every gate passed.\n";
  for (const ExerciseResult& e : r.exercises) {
    const Gate* s = e.gate("speed");
    if (s != nullptr && !s->skipped && !e.timed) {
      out +=
          "\nSpeed in CPU mode is the cost model's ratio (shared wavefronts and global sectors; no "
          "GPU here); on a GPU, "
          "`make grade` times the kernels instead.\n";
      break;
    }
  }
  return out;
}

/// `text` with every secret size label replaced (whole labels only: "n=1" is not in "n=19").
std::string redact(std::string text, const std::vector<std::string>& secret) {
  std::vector<std::string> labels = secret;
  std::sort(labels.begin(), labels.end(),
            [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  for (const std::string& label : labels) {
    if (label.empty()) continue;
    std::size_t at = 0;
    while ((at = text.find(label, at)) != std::string::npos) {
      const std::size_t end = at + label.size();
      const bool whole =
          end >= text.size() ||
          (std::isalnum(static_cast<unsigned char>(text[end])) == 0 && text[end] != '.');
      if (!whole) {
        at = end;
        continue;
      }
      const std::string hidden = "a secret size";
      text.replace(at, label.size(), hidden);
      at += hidden.size();
    }
  }
  return text;
}

json to_gradescope(const SubmissionResult& r, bool hide_secret_sizes) {
  json j;
  j["score"] = r.score();
  j["execution_time"] = r.seconds;
  // Markdown: the table stays a table; gate texts keep their `code`.
  j["output"] = "```\n" + render_table(r, false) + "```\n";
  j["output_format"] = "md";
  j["test_output_format"] = "md";
  j["tests"] = json::array();
  json leaderboard = json::array();
  for (const ExerciseResult& e : r.exercises) {
    std::string secret_text;
    for (const Gate& g : e.gates) {
      std::string output = g.reason;
      if (!g.detail.empty()) output += "\n\n```\n" + g.detail + "```";
      const std::string shown = hide_secret_sizes ? redact(output, e.secret_sizes) : output;
      if (shown != output) secret_text += "**" + g.name + "**: " + output + "\n\n";
      j["tests"].push_back({{"name", test_name(e, g)},
                            {"score", g.score},
                            {"max_score", g.max_score},
                            {"status", g.passed ? "passed" : "failed"},
                            {"output", shown},
                            {"visibility", "visible"}});
    }
    if (hide_secret_sizes && !e.secret_sizes.empty()) {
      // The sizes drawn from the secret seed, and what they showed, after the due date.
      std::string sizes;
      for (const auto& s : e.secret_sizes) sizes += (sizes.empty() ? "" : ", ") + s;
      j["tests"].push_back(
          {{"name", fmt::format("{} {}: secret sizes", e.spec->id, e.spec->slug.substr(3))},
           {"score", 0},
           {"max_score", 0},
           {"status", "passed"},
           {"output",
            "Sizes drawn from this run's secret seed: " + sizes + ".\n\n" +
                (secret_text.empty() ? std::string("Nothing failed at them.") : secret_text)},
           {"visibility", "after_due_date"}});
    }
    if (e.kernel_ms > 0) {
      leaderboard.push_back(
          {{"name", fmt::format("{} {} (ms)", e.spec->id, e.spec->slug.substr(3))},
           {"value", e.kernel_ms},
           {"order", "asc"}});
    }
  }
  if (!leaderboard.empty()) j["leaderboard"] = leaderboard;
  j["extra_data"] = r.facts;
  j["extra_data"]["mode_description"] = r.mode_description;
  j["extra_data"]["max_score"] = r.max_score();
  // Where each exercise's time went (the instructor's view of a slow class run).
  json steps = json::object();
  for (const ExerciseResult& e : r.exercises) {
    json one = json::array();
    for (const auto& [name, seconds] : e.steps) {
      one.push_back({{"step", name}, {"seconds", std::round(seconds * 100) / 100}});
    }
    if (!one.empty()) steps[e.spec->id] = one;
  }
  if (!steps.empty()) j["extra_data"]["steps"] = steps;
  return j;
}

json to_prairielearn(const SubmissionResult& r) {
  json j;
  j["gradable"] = true;
  j["score"] = r.max_score() == 0 ? 0.0 : static_cast<double>(r.score()) / r.max_score();
  j["message"] = fmt::format("{}/{} points ({})", r.score(), r.max_score(), r.mode_description);
  j["output"] = render_table(r, false);
  j["tests"] = json::array();
  for (const ExerciseResult& e : r.exercises) {
    for (const Gate& g : e.gates) {
      j["tests"].push_back({{"name", test_name(e, g)},
                            {"points", g.score},
                            {"max_points", g.max_score},
                            {"message", g.reason},
                            {"output", g.detail}});
    }
  }
  return j;
}

std::string to_junit(const SubmissionResult& r) {
  int tests = 0;
  int failures = 0;
  for (const auto& e : r.exercises) {
    for (const auto& g : e.gates) {
      ++tests;
      failures += g.passed ? 0 : 1;
    }
  }
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += fmt::format("<testsuites tests=\"{}\" failures=\"{}\" time=\"{:.3f}\">\n", tests, failures,
                     r.seconds);
  for (const auto& e : r.exercises) {
    out += fmt::format("  <testsuite name=\"{}\" tests=\"{}\" time=\"{:.3f}\">\n",
                       xml_escape(e.spec->slug), e.gates.size(), e.seconds);
    for (const auto& g : e.gates) {
      out += fmt::format("    <testcase classname=\"{}\" name=\"{}\">", xml_escape(e.spec->slug),
                         xml_escape(g.name));
      if (g.skipped) {
        out += fmt::format("<skipped message=\"{}\"/>", xml_escape(g.reason));
      } else if (!g.passed) {
        out += fmt::format("<failure message=\"{}\">{}</failure>", xml_escape(g.reason),
                           xml_escape(g.detail));
      }
      out += "</testcase>\n";
    }
    out += "  </testsuite>\n";
  }
  return out + "</testsuites>\n";
}

}  // namespace grader
