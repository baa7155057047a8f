// gpu_backend.cpp - the GPU backend: builds the student's kernel with nvcc for the detected
// architecture, as its own translation unit linked to gpu/worker.cu, runs it (correctness run, then
// a median of 15 CUDA-event timings with the L2 flushed and fresh inputs), reads the shared-memory
// wavefronts of every LDS/STS instruction with Nsight Compute (`--clock-control none`: the GPU's
// settings are never changed) and checks memory and races with compute-sanitizer. The worker
// (gpu/worker.cu) reports through the same protocol as the CPU worker; sites are per SASS
// instruction (line 0, the instruction as source).
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <regex>
#include <sstream>

#include "backend_internal.hpp"
#include "grader/backend.hpp"

namespace grader {
namespace fs = std::filesystem;
using nlohmann::json;
using namespace internal;

namespace {

std::string shell(const std::string& command) {
  std::string out;
  FILE* p = popen((command + " 2>/dev/null").c_str(), "r");
  char buf[4096];
  while (p != nullptr && std::fgets(buf, sizeof buf, p) != nullptr) out += buf;
  if (p != nullptr) pclose(p);
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out;
}

bool have(const std::string& tool) {
  return std::system(("command -v " + tool + " >/dev/null 2>&1").c_str()) == 0;
}

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

/// Per kernel launch (in order), the LDS/STS instructions of ncu's source page.
std::vector<std::vector<protocol::Site>> parse_source_page(const std::string& csv,
                                                           const std::string& file) {
  std::vector<std::vector<protocol::Site>> launches;
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
    auto col = [&](const char* name) -> std::string {
      for (std::size_t i = 0; i < head.size(); ++i) {
        if (head[i] == name) return f[i];
      }
      return "";
    };
    std::string src = col("Source");
    src.erase(0, src.find_first_not_of(' '));
    const bool load = src.rfind("LDS", 0) == 0 && src.rfind("LDSM", 0) != 0;
    const bool store = src.rfind("STS", 0) == 0;
    const double executed = number(col("Instructions Executed"));
    if ((!load && !store) || executed == 0) continue;
    const double wf = number(col("L1 Wavefronts Shared"));
    const double ideal = number(col("L1 Wavefronts Shared Ideal"));
    protocol::Site site;
    site.file = file;
    site.source = src;
    site.op = load ? "load" : "store";
    site.bytes = static_cast<int>(number(col("Access Size")) / 8);
    site.requests = static_cast<std::uint64_t>(executed);
    site.wavefronts = static_cast<std::uint64_t>(wf);
    site.ideal = static_cast<std::uint64_t>(ideal);
    launches.back().push_back(site);
  }
  return launches;
}

/// compute-sanitizer's findings as report issues (kind, line, message).
std::vector<protocol::Issue> sanitizer_issues(const std::string& text, const std::string& tool) {
  std::vector<protocol::Issue> issues;
  static const std::regex summary(R"((\d+) (errors|hazards))");
  std::smatch m;
  if (!std::regex_search(text, m, summary) || m[1].str() == "0") return issues;
  static const std::regex where(R"(in (\S+):(\d+))");
  std::string message;
  int line = 0;
  std::istringstream in(text);
  std::string l;
  int kept = 0;
  while (std::getline(in, l) && kept < 4) {
    if (l.rfind("========= ", 0) != 0 || l.find("COMPUTE-SANITIZER") != std::string::npos) continue;
    const std::string body = l.substr(10);
    if (body.empty() || body.find("SUMMARY") != std::string::npos) continue;
    if (line == 0 && std::regex_search(body, m, where)) line = std::stoi(m[2].str());
    message += (message.empty() ? "" : " | ") + body;
    ++kept;
  }
  issues.push_back({tool == "racecheck" ? "race" : "out_of_bounds", "error", "", line, 0,
                    "compute-sanitizer " + tool + ": " + message});
  return issues;
}

class GpuBackend : public Backend {
 public:
  GpuBackend() {
    gpu_ = shell("nvidia-smi --query-gpu=name --format=csv,noheader | head -1");
    driver_ = shell("nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1");
    std::string cap = shell("nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1");
    cap.erase(std::remove(cap.begin(), cap.end(), '.'), cap.end());
    arch_ = cap.empty() ? "90" : cap;
    cuda_ = shell("nvcc --version | grep -o 'release [0-9.]*' | cut -d' ' -f2");
    ncu_ = have("ncu");
    sanitizer_ = have("compute-sanitizer");
  }
  Capabilities capabilities() const override {
    Capabilities c;
    c.name = "gpu";
    c.can_time = true;
    c.can_profile = ncu_;
    c.can_sanitize = sanitizer_;
    c.conflict_tolerance = 1.05;  // counters include arbitration noise: 1.01x seen when ideal
    c.sites_have_lines = false;   // ncu's source page is read as SASS
    return c;
  }
  std::string describe() const override {
    return fmt::format("GPU: {} (sm_{}), driver {}, CUDA {}; timed speed-ups{}{}", gpu_, arch_,
                       driver_, cuda_, ncu_ ? ", Nsight Compute counters" : " (no ncu)",
                       sanitizer_ ? ", compute-sanitizer" : " (no compute-sanitizer)");
  }
  json facts() const override {
    return {{"mode", "gpu"}, {"gpu", gpu_}, {"arch", "sm_" + arch_},          {"driver", driver_},
            {"cuda", cuda_}, {"ncu", ncu_}, {"compute_sanitizer", sanitizer_}};
  }

  WorkerOutcome run(const WorkerJob& job, const fs::path& dir,
                    const Limits& cpu_limits) const override {
    // The time limit holds; an address-space limit would break CUDA (its context reserves far
    // more virtual memory than it uses), so GPU children run without one.
    const Limits limits{cpu_limits.seconds, 0};
    WorkerOutcome out;
    write_inputs(job, dir);
    if (job.request.kind == "host") {
      // Host exercises have no kernel: the CPU worker grades them the same way on any machine.
      run_child(
          {(self_dir() / "grade_worker").string(), dir.string(), "--report-fd", "{report_fd}"}, dir,
          cpu_limits, out, "output.log", &job);
      return out;
    }
    // The student's file is its own translation unit: no macro of it reaches the harness.
    const fs::path root = course_root();
    const fs::path worker = dir / "worker";
    const std::string unit = fmt::format(
        "// Generated by the grader: the file under test as its own translation unit.\n"
        "#include \"course_todo.h\"\n#include \"{}\"\n"
        "extern \"C\" const void* course_student_kernel() {{\n"
        "  return reinterpret_cast<const void*>(&{});\n}}\n",
        fs::absolute(job.request.file).string(), job.request.kernel);
    std::ofstream(dir / "student_unit.cu") << unit;
    std::vector<std::string> nvcc = {"nvcc",
                                     "-O3",
                                     "-std=c++17",
                                     "-arch=sm_" + arch_,
                                     "-lineinfo",
                                     "-I" + (root / "gpu").string(),
                                     "-I" + (root / "gpu/include").string(),
                                     "-I" + (root / "grader/include").string(),
                                     (root / "gpu/worker.cu").string(),
                                     (dir / "student_unit.cu").string(),
                                     "-o",
                                     worker.string()};
    // Builds are cached by content (the same file is built once for all sizes).
    std::string sources = read_file(job.request.file) + unit + arch_;
    for (const char* f : {"gpu/worker.cu", "gpu/harness.cuh", "grader/include/grader/protocol.hpp",
                          "gpu/include/course_todo.h"}) {
      sources += read_file(root / f);
    }
    const std::string key = fmt::format("{:016x}", std::hash<std::string>{}(sources));
    const fs::path cached = dir.parent_path() / "gpu-build-cache" / key;
    WorkerOutcome build;
    if (fs::exists(cached / "worker")) {
      fs::copy_file(cached / "worker", worker, fs::copy_options::overwrite_existing);
    } else {
      run_child(resolve(nvcc), dir, Limits{180.0, limits.memory_bytes}, build, "build.log");
      if (build.exit_status == 0 && fs::exists(worker)) {
        fs::create_directories(cached);
        fs::copy_file(worker, cached / "worker", fs::copy_options::overwrite_existing);
      }
    }
    if (build.exit_status != 0 || !fs::exists(worker)) {
      const std::string log = read_file(dir / "build.log");
      static const std::regex err(R"((\S+)\((\d+)\): error: ([^\n]*))");
      std::smatch m;
      std::string message = "nvcc could not build the kernel";
      if (std::regex_search(log, m, err)) {
        message = fs::path(m[1].str()).string() + ":" + m[2].str() + ": error: " + m[3].str();
      }
      out.started = true;
      out.exit_status = build.exit_status;
      out.report.runs.resize(job.request.runs.size());
      out.report.run_received.assign(job.request.runs.size(), false);
      out.report.compile = {true, false, message, log};
      return out;
    }
    // Correctness run and timing.
    run_child({worker.string(), dir.string(), "--report-fd", "{report_fd}"}, dir, limits, out,
              "output.log", &job);
    // Hardware counters per instruction, and the sanitizers, on a run without timing loops.
    if (ncu_ && job.profile && out.exit_status == 0) {
      WorkerOutcome prof;
      run_child(resolve({"ncu", "--clock-control", "none", "--section", "SourceCounters", "-f",
                         "-o", (dir / "prof").string(), worker.string(), dir.string(),
                         "--report-fd", "{report_fd}", "--once"}),
                dir, Limits{300.0, limits.memory_bytes}, prof, "ncu.log", &job);
      WorkerOutcome page;
      run_child(resolve({"ncu", "-i", (dir / "prof.ncu-rep").string(), "--page", "source", "--csv",
                         "--print-source", "sass"}),
                dir, Limits{300.0, limits.memory_bytes}, page, "ncu-source.csv");
      const auto launches = parse_source_page(read_file(dir / "ncu-source.csv"), job.request.file);
      for (std::size_t k = 0; k < launches.size() && k < out.report.runs.size(); ++k) {
        auto& sites = out.report.runs[k].sites;
        sites.insert(sites.end(), launches[k].begin(), launches[k].end());
      }
    }
    if (sanitizer_ && job.sanitize && out.exit_status == 0 && !out.report.runs.empty()) {
      for (const char* tool : {"memcheck", "racecheck"}) {
        WorkerOutcome san;
        const std::string log = std::string("sanitizer-") + tool + ".log";
        run_child(resolve({"compute-sanitizer", "--tool", tool, "--print-limit", "5",
                           worker.string(), dir.string(), "--report-fd", "{report_fd}", "--once"}),
                  dir, Limits{300.0, limits.memory_bytes}, san, log, &job);
        const auto issues = sanitizer_issues(read_file(dir / log), tool);
        auto& into = out.report.runs.back().issues;
        into.insert(into.end(), issues.begin(), issues.end());
      }
    }
    return out;
  }

 private:
  static std::vector<std::string> resolve(std::vector<std::string> argv) {
    const std::string full = shell("command -v " + argv[0]);
    if (!full.empty()) argv[0] = full;
    return argv;
  }

  std::string gpu_, driver_, arch_, cuda_;
  bool ncu_ = false;
  bool sanitizer_ = false;
};

}  // namespace

std::unique_ptr<Backend> make_gpu_backend(std::string* why) {
  if (!have("nvcc")) {
    *why =
        "MODE=gpu: a GPU is present but nvcc is not on the PATH: install the CUDA toolkit, or "
        "grade with MODE=cpu";
    return nullptr;
  }
  return std::make_unique<GpuBackend>();
}

}  // namespace grader
