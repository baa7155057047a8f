// gpu_backend.cpp - the GPU backend: builds the student's kernel with nvcc for the detected
// architecture into grader/gpu/gpu_worker.cu, runs it (correctness run, then a median of 15
// CUDA-event timings with the L2 flushed and fresh inputs), reads the shared-memory wavefronts of
// every LDS/STS instruction with Nsight Compute (`--clock-control none`: the GPU's settings are
// never changed) and checks memory and races with compute-sanitizer. The outcome has the same
// shape as the CPU backend's; sites are per SASS instruction (line 0, the instruction as source).
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
std::vector<json> parse_source_page(const std::string& csv, const std::string& file) {
  std::vector<json> launches;
  std::istringstream in(csv);
  std::string line;
  std::vector<std::string> head;
  while (std::getline(in, line)) {
    const auto f = csv_fields(line);
    if (f.size() >= 2 && f[0] == "Kernel Name") {
      launches.push_back(json::array());
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
    launches.back().push_back({{"file", file},
                               {"line", 0},
                               {"source", src},
                               {"variable", ""},
                               {"op", load ? "load" : "store"},
                               {"bytes", static_cast<int>(number(col("Access Size")) / 8)},
                               {"requests", static_cast<std::uint64_t>(executed)},
                               {"wavefronts", static_cast<std::uint64_t>(wf)},
                               {"ideal", static_cast<std::uint64_t>(ideal)},
                               {"wavefronts_per_request", wf / executed},
                               {"ways", ideal > 0 ? wf / ideal : 1.0}});
  }
  return launches;
}

/// compute-sanitizer's findings as report issues (kind, line, message).
json sanitizer_issues(const std::string& text, const std::string& tool) {
  json issues = json::array();
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
  issues.push_back({{"kind", tool == "racecheck" ? "race" : "out_of_bounds"},
                    {"severity", "error"},
                    {"file", ""},
                    {"line", line},
                    {"message", "compute-sanitizer " + tool + ": " + message}});
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
  std::string mode() const override { return "gpu"; }
  std::string describe() const override {
    return fmt::format("GPU: {} (sm_{}), driver {}, CUDA {}; timed speed-ups{}{}", gpu_, arch_,
                       driver_, cuda_, ncu_ ? ", Nsight Compute counters" : " (no ncu)",
                       sanitizer_ ? ", compute-sanitizer" : " (no compute-sanitizer)");
  }
  json facts() const override {
    return {{"mode", "gpu"}, {"gpu", gpu_}, {"arch", "sm_" + arch_},          {"driver", driver_},
            {"cuda", cuda_}, {"ncu", ncu_}, {"compute_sanitizer", sanitizer_}};
  }

  WorkerOutcome run(const WorkerRequest& request, const fs::path& dir,
                    const Limits& cpu_limits) const override {
    // The time limit holds; an address-space limit would break CUDA (its context reserves far
    // more virtual memory than it uses), so GPU children run without one.
    const Limits limits{cpu_limits.seconds, 0};
    WorkerOutcome out;
    if (request.kind == ExerciseSpec::Kind::kHost) {
      // Host exercises have no kernel: the CPU worker grades them the same way on any machine.
      WorkerOutcome w;
      write_request(request, dir);
      run_child({(self_dir() / "grade_worker").string(), dir.string()}, dir, cpu_limits, w);
      read_outcome(request, dir, w);
      return w;
    }
    write_request(request, dir);  // the .in files (request.json is ignored by the GPU worker)
    write_text_request(request, dir);
    // Build.
    const fs::path worker = dir / "worker";
    const std::string root = course_root().string();
    std::vector<std::string> nvcc = {
        "nvcc",
        "-O3",
        "-std=c++17",
        "-arch=sm_" + arch_,
        "-lineinfo",
        "-I" + root + "/include",
        "-DCOURSE_STUDENT_FILE=\"" + fs::absolute(request.file).string() + "\"",
        "-DCOURSE_KERNEL=" + request.kernel,
        root + "/grader/gpu/gpu_worker.cu",
        "-o",
        worker.string()};
    // Builds are cached by content (the same file is built once for all sizes).
    const std::string key = fmt::format(
        "{:016x}", std::hash<std::string>{}(read_file(request.file) + request.kernel + arch_ +
                                            read_file(root + "/grader/gpu/gpu_worker.cu")));
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
      std::ofstream(dir / "compile.json")
          << json{{"ok", false}, {"message", message}, {"diagnostics", log}}.dump();
      read_outcome(request, dir, out);
      out.started = true;
      out.exit_status = build.exit_status;
      return out;
    }
    std::ofstream(dir / "compile.json") << json{{"ok", true}}.dump();
    // Correctness run and timing.
    run_child({worker.string(), dir.string()}, dir, limits, out);
    // Hardware counters per instruction, and the sanitizers, on a run without timing loops.
    if (ncu_ && request.profile && out.exit_status == 0) {
      WorkerOutcome prof;
      run_child(
          {"/bin/sh", "-c",
           "ncu --clock-control none --section SourceCounters -f -o '" + (dir / "prof").string() +
               "' '" + worker.string() + "' '" + dir.string() + "' --once && ncu -i '" +
               (dir / "prof.ncu-rep").string() + "' --page source --csv --print-source sass > '" +
               (dir / "ncu-source.csv").string() + "'"},
          dir, Limits{300.0, limits.memory_bytes}, prof, "ncu.log");
      const auto launches =
          parse_source_page(read_file(dir / "ncu-source.csv"), request.file.string());
      for (std::size_t k = 0; k < launches.size() && k < request.runs.size(); ++k) {
        merge_into_report(dir, k, "sites", launches[k]);
      }
    }
    if (sanitizer_ && request.sanitize && out.exit_status == 0) {
      for (const char* tool : {"memcheck", "racecheck"}) {
        WorkerOutcome san;
        const std::string log = std::string("sanitizer-") + tool + ".log";
        run_child(resolve({"compute-sanitizer", "--tool", tool, "--print-limit", "5",
                           worker.string(), dir.string(), "--once"}),
                  dir, Limits{300.0, limits.memory_bytes}, san, log);
        const json issues = sanitizer_issues(read_file(dir / log), tool);
        if (!issues.empty()) merge_into_report(dir, request.runs.size() - 1, "issues", issues);
      }
    }
    read_outcome(request, dir, out);
    return out;
  }

 private:
  static std::vector<std::string> resolve(std::vector<std::string> argv) {
    const std::string full = shell("command -v " + argv[0]);
    if (!full.empty()) argv[0] = full;
    return argv;
  }

  static void write_text_request(const WorkerRequest& r, const fs::path& dir) {
    std::ofstream t(dir / "request.txt");
    t << "runs " << r.runs.size() << "\n";
    for (const RunRequest& run : r.runs) {
      t << "run grid " << run.launch.grid[0] << " " << run.launch.grid[1] << " "
        << run.launch.grid[2] << " block " << run.launch.block[0] << " " << run.launch.block[1]
        << " " << run.launch.block[2] << " smem " << run.launch.smem << " timed "
        << (r.timed ? 1 : 0) << " buffers " << run.buffers.size() << " args " << run.args.size()
        << "\n";
      for (const auto& b : run.buffers) t << "buffer " << b.size() << "\n";
      std::size_t scalar = 0;
      for (const ArgSpec& a : run.args) {
        if (a.buffer >= 0) {
          t << "arg buffer " << a.buffer << "\n";
        } else {
          t << "arg int " << run.ints.at(scalar++) << "\n";
        }
      }
    }
  }

  /// Adds `items` to array `key` of DIR/runK.report.json (creating the report if needed).
  static void merge_into_report(const fs::path& dir, std::size_t k, const std::string& key,
                                const json& items) {
    const fs::path p = dir / fmt::format("run{}.report.json", k);
    json rep = json::parse(read_file(p), nullptr, false);
    if (!rep.is_object())
      rep = json{{"completed", false}, {"sites", json::array()}, {"issues", json::array()}};
    if (!rep.contains(key) || !rep[key].is_array()) rep[key] = json::array();
    for (const auto& item : items) rep[key].push_back(item);
    std::ofstream(p) << rep.dump(1) << "\n";
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
