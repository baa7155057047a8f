// ncu_reader.cpp - Nsight Compute for the GPU backend: its command line (limited to the
// student's kernel, one launch per size, and the source counters the gates read) and its source
// page read as per-instruction shared and global sites.
#include <fmt/format.h>

#include <algorithm>
#include <regex>
#include <sstream>
#include <utility>

#include "backend_internal.hpp"

namespace grader::internal {

namespace {

/// Splits one CSV line (ncu quotes every field).
std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> f;
  std::string cur;
  bool quoted = false;
  for (char c : line) {
    if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      f.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  f.push_back(cur);
  return f;
}

double number(const std::string& s) {
  std::string t;
  for (char c : s) {
    if (c != ',') t += c;
  }
  return t.empty() ? 0.0 : std::atof(t.c_str());
}

}  // namespace

namespace {

/// The source-level metrics the reader uses, by name (what `--section SourceCounters` shows
/// under display names, without its warp-state sampling: 1.65-1.98 s a profile on the H200
/// against 2.28-2.67 s, measurements/gpu-grading/2026-12-03-class-scale.md), with the column
/// each is shown under in the section's page.
constexpr std::pair<const char*, const char*> kSourceMetrics[] = {
    {"inst_executed", "Instructions Executed"},
    {"thread_inst_executed_true", "Predicated-On Thread Instructions Executed"},
    {"memory_access_size_type", "Access Size"},
    {"memory_l1_wavefronts_shared", "L1 Wavefronts Shared"},
    {"memory_l1_wavefronts_shared_ideal", "L1 Wavefronts Shared Ideal"},
    {"memory_l2_theoretical_sectors_global", "L2 Theoretical Sectors Global"},
    {"memory_l2_theoretical_sectors_global_ideal", "L2 Theoretical Sectors Global Ideal"},
    {"memory_l1_tag_requests_global", "L1 Tag Requests Global"},
};

}  // namespace

std::vector<std::string> ncu_argv(const std::string& kernel, std::size_t launches,
                                  const std::string& report, const std::string& worker,
                                  const std::string& dir, NcuCounters counters) {
  // The per-instruction counters of the source page (shared wavefronts and their ideal, global
  // sectors, executed instructions): what the conflicts, anti-bypass and cost-model gates read,
  // and no other section's passes.
  std::vector<std::string> argv = {"ncu", "--clock-control", "none"};
  if (counters == NcuCounters::kMetrics) {
    std::string names;
    for (const auto& [metric, column] : kSourceMetrics)
      names += (names.empty() ? "" : ",") + std::string(metric);
    argv.insert(argv.end(), {"--metrics", names});
  } else {
    argv.insert(argv.end(), {"--section", "SourceCounters"});
  }
  // The kernel's name without template arguments: ncu matches the function's base name, alone
  // or with template arguments or parameters after it, whichever way this ncu's
  // --kernel-name-base prints it (never a longer name that starts alike).
  const std::string base = kernel.substr(0, kernel.find('<'));
  if (!base.empty()) argv.insert(argv.end(), {"--kernel-name", "regex:^" + base + "($|[<(])"});
  argv.insert(argv.end(),
              {"--launch-count", std::to_string(std::max<std::size_t>(launches, 1)), "-f", "-o",
               report, worker, dir, "--report-fd", "{report_fd}", "--once"});
  return argv;
}

std::string ncu_failure(const std::string& log, int exit_status) {
  static const std::regex err(R"(==ERROR==[^\n]*)");
  std::smatch m;
  if (std::regex_search(log, m, err)) return m.str();
  return "ncu produced no source page (exit status " + std::to_string(exit_status) +
         "): " + (log.size() > 400 ? log.substr(log.size() - 400) : log);
}

std::vector<ProfiledLaunch> parse_source_page(const std::string& csv, const std::string& file) {
  std::vector<ProfiledLaunch> launches;
  std::istringstream in(csv);
  std::string line;
  std::vector<std::string> head;
  while (std::getline(in, line)) {
    const auto f = csv_fields(line);
    if (f.size() >= 2 && f[0] == "Kernel Name") {
      launches.emplace_back();
      head.clear();
      continue;
    }
    if (!f.empty() && f[0] == "Address") {
      head = f;
      continue;
    }
    if (head.empty() || launches.empty() || f.size() != head.size()) continue;
    // A column by the section's display name, or by its metric's name (--metrics).
    auto col = [&](const char* name) -> std::string {
      const char* metric = name;
      for (const auto& [m, shown] : kSourceMetrics) {
        if (std::string(shown) == name) metric = m;
      }
      for (std::size_t i = 0; i < head.size(); ++i) {
        if (head[i] == name || head[i] == metric) return f[i];
      }
      return "";
    };
    std::string src = col("Source");
    src.erase(0, src.find_first_not_of(' '));
    // A predicated instruction ("@!P0 STS [R3], R4") is a shared access all the same.
    std::string opcode = src;
    if (!opcode.empty() && opcode[0] == '@') {
      const auto space = opcode.find(' ');
      opcode = space == std::string::npos ? "" : opcode.substr(space + 1);
      opcode.erase(0, opcode.find_first_not_of(' '));
    }
    // LDSM (ldmatrix; what wmma::load_matrix_sync of a half fragment compiles to) is a shared
    // load of 16-byte rows, one 8-row matrix per phase (measurements/lessons/
    // 2026-12-03-tensor-core-tiles.md).
    const bool ldsm = opcode.rfind("LDSM", 0) == 0;
    const bool load = opcode.rfind("LDS", 0) == 0;
    const bool store = opcode.rfind("STS", 0) == 0;
    const bool atomic = opcode.rfind("ATOMS", 0) == 0;
    const double executed = number(col("Instructions Executed"));
    const bool global_load = opcode.rfind("LDG", 0) == 0;
    const bool global_store =
        opcode.rfind("STG", 0) == 0 || opcode.rfind("RED", 0) == 0 || opcode.rfind("ATOMG", 0) == 0;
    if (opcode.rfind("SHFL", 0) == 0 && executed > 0) {
      // A warp shuffle: what the cost model prices besides memory (GPUs without a gate row).
      launches.back().warp_shuffles += static_cast<std::uint64_t>(executed);
      continue;
    }
    if ((global_load || global_store) && executed > 0) {
      protocol::GlobalSite g;
      g.file = file;
      g.source = src;
      g.op = global_load ? bankmodel::Op::kLoad : bankmodel::Op::kStore;
      g.bytes = static_cast<int>(number(col("Access Size")) / 8);
      g.requests = static_cast<std::uint64_t>(executed);
      g.sectors = static_cast<std::uint64_t>(number(col("L2 Theoretical Sectors Global")));
      g.ideal =
          std::min(g.sectors,
                   static_cast<std::uint64_t>(number(col("L2 Theoretical Sectors Global Ideal"))));
      // The page has no reuse between requests: every sector counts as fetched.
      g.lines =
          std::min(g.sectors, static_cast<std::uint64_t>(number(col("L1 Tag Requests Global"))));
      g.fresh = g.sectors;
      launches.back().global_sites.push_back(g);
      continue;
    }
    if ((!load && !store && !atomic) || executed == 0) continue;
    const double wf = number(col("L1 Wavefronts Shared"));
    const double ideal = number(col("L1 Wavefronts Shared Ideal"));
    protocol::Site site;
    site.file = file;
    site.source = src;
    // ATOMS.CAST is the body of a compare-and-swap loop (docs/bank-rules.md R6).
    site.op = load                                 ? bankmodel::Op::kLoad
              : store                              ? bankmodel::Op::kStore
              : opcode.rfind("ATOMS.CAST", 0) == 0 ? bankmodel::Op::kAtomicLoop
                                                   : bankmodel::Op::kAtomic;
    site.bytes = ldsm ? 16 : static_cast<int>(number(col("Access Size")) / 8);
    site.requests = static_cast<std::uint64_t>(executed);
    site.wavefronts = static_cast<std::uint64_t>(wf);
    site.ideal = static_cast<std::uint64_t>(ideal);
    // ncu's ideal is ceil(active bytes / 128) per request, which an 8- or 16-byte request with
    // inactive lanes cannot reach: the hardware serves such a request in fixed half- or
    // quarter-warp phases (measured on the H200: 4 lanes, one per quarter-warp, of a swizzled
    // STS.128 take 4 wavefronts; ncu calls 1 ideal). Where requests are partial, the reachable
    // ideal is at most min(phases, active lanes) per request; full requests keep ncu's value.
    const double threads = number(col("Predicated-On Thread Instructions Executed"));
    const int phases = std::max(1, site.bytes / 4);
    if (phases > 1 && threads > 0 && threads < 32.0 * executed) {
      const auto reachable =
          static_cast<std::uint64_t>(std::min(static_cast<double>(phases) * executed, threads));
      site.ideal = std::max(site.ideal, std::min(site.wavefronts, reachable));
    }
    if (ldsm) {
      // An ldmatrix of 1, 2 or 4 matrices (".M88", ".M88.2", ".MT88.4") takes one wavefront per
      // matrix at best (measured on the H200: 1, 2, 4).
      const int matrices = opcode.find(".4") != std::string::npos   ? 4
                           : opcode.find(".2") != std::string::npos ? 2
                                                                    : 1;
      site.ideal = std::max(
          site.ideal, std::min(site.wavefronts, static_cast<std::uint64_t>(matrices * executed)));
    }
    launches.back().sites.push_back(site);
  }
  return launches;
}

}  // namespace grader::internal
