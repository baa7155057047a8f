// report.cpp - tables and LMS formats of a graded submission.
#include "grader/report.hpp"

#include <fmt/format.h>

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

std::string render_table(const SubmissionResult& r, bool verbose) {
  std::string out = fmt::format("Grading {} -- mode: {}\n\n", r.name, r.mode_description);
  out += fmt::format("{:<24} {:<6} {:<7} {:<26} {:<16} {:>7}\n", "exercise", "builds", "correct",
                     "conflicts (wf/ideal)", "speed-up", "points");
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

json to_gradescope(const SubmissionResult& r) {
  json j;
  j["score"] = r.score();
  j["execution_time"] = r.seconds;
  j["output"] = render_table(r, false);
  j["tests"] = json::array();
  for (const ExerciseResult& e : r.exercises) {
    for (const Gate& g : e.gates) {
      std::string output = g.reason;
      if (!g.detail.empty()) output += "\n" + g.detail;
      j["tests"].push_back({{"name", test_name(e, g)},
                            {"score", g.score},
                            {"max_score", g.max_score},
                            {"status", g.passed ? "passed" : "failed"},
                            {"output", output},
                            {"visibility", "visible"}});
    }
  }
  j["extra_data"] = r.facts;
  j["extra_data"]["mode_description"] = r.mode_description;
  j["extra_data"]["max_score"] = r.max_score();
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
