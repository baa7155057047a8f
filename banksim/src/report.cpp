// report.cpp - a launch's report as people and programs read it: one problem as a sentence, the
// per-line table the CLI prints, the JSON of docs/design.md ({"sites": [...], "issues": [...]}),
// and parse_dim3 for the CLI.
#include <fmt/format.h>

#include <algorithm>
#include <regex>
#include <string>

#include "banksim/banksim.hpp"

namespace banksim {
namespace {

nlohmann::json request_json(const bankmodel::Request& r) {
  nlohmann::json lanes = nlohmann::json::array();
  for (int t = 0; t < bankmodel::kWarpSize; ++t) {
    lanes.push_back(r.is_active(t) ? nlohmann::json(r.offset(t)) : nlohmann::json());
  }
  return {{"op", bankmodel::to_string(r.op())}, {"width", r.width()}, {"offsets", lanes}};
}

std::string dim_string(dim3 d) {
  return fmt::format("({},{},{})", d.x, d.y, d.z);
}
std::string dim_string(uint3 d) {
  return fmt::format("({},{},{})", d.x, d.y, d.z);
}

}  // namespace

// ---- Reports --------------------------------------------------------------------------------

std::string Problem::to_string() const {
  std::string s =
      fmt::format("{}:{}: {}{}: {}", file, line, warning ? "warning: " : "", kind, message);
  s += fmt::format(" [block {}, thread {}", dim_string(block), dim_string(thread));
  if (has_other_thread) s += fmt::format(", other thread {}", dim_string(other_thread));
  if (other_line != 0) s += fmt::format(", other access at line {}", other_line);
  if (count > 1) s += fmt::format(", {} times", count);
  return s + "]";
}

std::size_t LaunchReport::error_count() const {
  return static_cast<std::size_t>(
      std::count_if(problems.begin(), problems.end(), [](const Problem& p) { return !p.warning; }));
}

std::vector<const LineStats*> LaunchReport::at_line(int line) const {
  std::vector<const LineStats*> out;
  for (const LineStats& l : lines) {
    if (l.line == line) out.push_back(&l);
  }
  return out;
}

nlohmann::json LaunchReport::to_json() const {
  nlohmann::json j;
  j["kernel"] = kernel;
  j["grid"] = {config.grid.x, config.grid.y, config.grid.z};
  j["block"] = {config.block.x, config.block.y, config.block.z};
  j["smem"] = config.dynamic_smem;
  j["completed"] = completed;
  j["abort_reason"] = abort_reason;
  j["threads"] = threads;
  j["traced_shared_accesses"] = traced_shared_accesses;
  j["widths"] = widths;
  j["nvcc_widths"] = nvcc_widths;
  j["regrouped"] = regrouped;
  j["warp_shuffles"] = warp_shuffles;
  j["mergeable"] = mergeable;
  j["execution"] = regions ? "regions" : "fibers";
  j["seconds"] = seconds;
  j["sites"] = nlohmann::json::array();
  for (const LineStats& l : lines) {
    j["sites"].push_back({{"file", l.file},
                          {"line", l.line},
                          {"source", l.source},
                          {"variable", l.variable},
                          {"op", bankmodel::to_string(l.op)},
                          {"bytes", l.bytes},
                          {"requests", l.requests},
                          {"wavefronts", l.wavefronts},
                          {"ideal", l.ideal},
                          {"wavefronts_per_request", l.wavefronts_per_request()},
                          {"ways", l.ways()},
                          {"worst", request_json(l.worst)}});
  }
  j["global_sites"] = nlohmann::json::array();
  for (const GlobalLineStats& l : global_lines) {
    j["global_sites"].push_back({{"file", l.file},
                                 {"line", l.line},
                                 {"column", l.column},
                                 {"source", l.source},
                                 {"op", bankmodel::to_string(l.op)},
                                 {"bytes", l.bytes},
                                 {"requests", l.requests},
                                 {"sectors", l.sectors},
                                 {"ideal", l.ideal},
                                 {"lines", l.lines},
                                 {"fresh", l.fresh}});
  }
  j["global_sectors_partial"] = global_sectors_partial;
  j["issues"] = nlohmann::json::array();
  for (const Problem& p : problems) {
    nlohmann::json q = {{"kind", p.kind},
                        {"severity", p.warning ? "warning" : "error"},
                        {"file", p.file},
                        {"line", p.line},
                        {"message", p.message},
                        {"variable", p.variable},
                        {"block", {p.block.x, p.block.y, p.block.z}},
                        {"thread", {p.thread.x, p.thread.y, p.thread.z}},
                        {"count", p.count}};
    if (p.other_line != 0) q["other_line"] = p.other_line;
    if (p.has_other_thread) {
      q["other_thread"] = {p.other_thread.x, p.other_thread.y, p.other_thread.z};
    }
    j["issues"].push_back(q);
  }
  return j;
}

std::string LaunchReport::table() const {
  std::string out = fmt::format(
      "banksim: {}<<<{}, {}{}>>> on the CPU: {} threads, {} shared accesses traced in {:.2f} s\n",
      kernel, dim_string(config.grid), dim_string(config.block),
      config.dynamic_smem != 0 ? ", " + std::to_string(config.dynamic_smem) : "", threads,
      traced_shared_accesses, seconds);
  if (!widths.empty()) {
    out += "access widths: " + widths +
           (regrouped != 0 ? fmt::format(" ({} requests regrouped)", regrouped) : "") + "\n";
  }
  if (lines.empty()) {
    out += "no shared-memory access was traced\n";
  } else {
    out += fmt::format("{:>5}  {:<44} {:<5} {:>5} {:>9} {:>8} {:>6} {:>6}\n", "line", "source",
                       "op", "bytes", "requests", "wf/req", "ideal", "k-way");
    for (const LineStats& l : lines) {
      std::string src = l.source.size() > 44 ? l.source.substr(0, 41) + "..." : l.source;
      const bool conflict = l.wavefronts > l.ideal;
      out +=
          fmt::format("{:>5}  {:<44} {:<5} {:>5} {:>9} {:>8.2f} {:>6.2f} {:>6.2f}{}\n", l.line, src,
                      bankmodel::to_string(l.op), l.bytes, l.requests, l.wavefronts_per_request(),
                      l.ideal_per_request(), l.ways(), conflict ? "  <- conflict" : "");
    }
  }
  if (!global_lines.empty()) {
    out += fmt::format("{:>5}  {:<44} {:<5} {:>5} {:>9} {:>8} {:>6}\n", "line",
                       "global memory (32-byte sectors)", "op", "bytes", "requests", "sec/req",
                       "ideal");
    for (const GlobalLineStats& l : global_lines) {
      std::string src = l.source.size() > 44 ? l.source.substr(0, 41) + "..." : l.source;
      const double ideal =
          l.requests == 0 ? 0.0 : static_cast<double>(l.ideal) / static_cast<double>(l.requests);
      out += fmt::format("{:>5}  {:<44} {:<5} {:>5} {:>9} {:>8.2f} {:>6.2f}{}\n", l.line, src,
                         bankmodel::to_string(l.op), l.bytes, l.requests, l.sectors_per_request(),
                         ideal, l.sectors > 2 * l.ideal ? "  <- uncoalesced" : "");
    }
    if (global_sectors_partial) {
      out +=
          "(global sectors counted in part: a thread made more than 262144 global accesses "
          "between two barriers)\n";
    }
  }
  if (!completed) out += "launch stopped early: " + abort_reason + "\n";
  if (problems.empty()) {
    out += "problems: none\n";
  } else {
    out += fmt::format("problems: {}\n", problems.size());
    for (const Problem& p : problems) out += "  " + p.to_string() + "\n";
  }
  return out;
}

dim3 parse_dim3(const std::string& text, const std::string& what) {
  static const std::regex dims(R"(\s*(\d+)\s*(?:[,x]\s*(\d+)\s*(?:[,x]\s*(\d+)\s*)?)?)");
  std::smatch m;
  if (!std::regex_match(text, m, dims)) {
    throw UsageError(what + " '" + text + "' is not X[,Y[,Z]] (e.g. 32,8)");
  }
  auto v = [&](int i) { return m[i].matched ? static_cast<unsigned>(std::stoul(m[i].str())) : 1u; };
  return dim3(v(1), v(2), v(3));
}

}  // namespace banksim
