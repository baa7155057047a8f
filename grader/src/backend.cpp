// backend.cpp - running a worker child process with limits, and the CPU backend (banksim).
#include "grader/backend.hpp"

#include "backend_internal.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

#ifndef COURSE_SOURCE_DIR
#error "COURSE_SOURCE_DIR must be set by CMake"
#endif

namespace grader {
namespace fs = std::filesystem;
using nlohmann::json;

namespace internal {

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void write_file(const fs::path& p, const std::vector<unsigned char>& bytes) {
  std::ofstream out(p, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
}

fs::path self_dir() {
  return fs::read_symlink("/proc/self/exe").parent_path();
}

/// Writes DIR/request.json and the input files of the worker protocol (see grade_worker.cpp).
void write_request(const WorkerRequest& r, const fs::path& dir) {
  json req;
  req["kind"] = r.kind == ExerciseSpec::Kind::kHost ? "host" : "kernel";
  req["file"] = fs::absolute(r.file).string();
  req["kernel"] = r.kernel;
  req["include_dirs"] = {(course_root() / "include").string()};
  req["timed"] = r.timed;
  req["runs"] = json::array();
  for (std::size_t k = 0; k < r.runs.size(); ++k) {
    const RunRequest& run = r.runs[k];
    json jr;
    jr["grid"] = {run.launch.grid[0], run.launch.grid[1], run.launch.grid[2]};
    jr["block"] = {run.launch.block[0], run.launch.block[1], run.launch.block[2]};
    jr["smem"] = run.launch.smem;
    jr["timeout_s"] = run.timeout_s;
    jr["args"] = json::array();
    std::size_t scalar = 0;
    for (const ArgSpec& a : run.args) {
      if (a.buffer >= 0) {
        jr["args"].push_back({{"buffer", a.buffer}});
      } else {
        jr["args"].push_back({{"int", run.ints.at(scalar++)}});
      }
    }
    jr["buffers"] = json::array();
    for (std::size_t j = 0; j < run.buffers.size(); ++j) {
      jr["buffers"].push_back({{"bytes", run.buffers[j].size()}});
      write_file(dir / fmt::format("run{}_buf{}.in", k, j), run.buffers[j]);
    }
    req["runs"].push_back(jr);
  }
  if (!r.host_cases.empty()) {
    std::vector<unsigned char> bytes(r.host_cases.size() * sizeof(r.host_cases[0]));
    std::memcpy(bytes.data(), r.host_cases.data(), bytes.size());
    write_file(dir / "host_cases.in", bytes);
  }
  std::ofstream(dir / "request.json") << req.dump(1) << "\n";
}

/// Reads what the worker left in DIR.
void read_outcome(const WorkerRequest& r, const fs::path& dir, WorkerOutcome& out) {
  const fs::path compile = dir / "compile.json";
  if (fs::exists(compile)) {
    try {
      const json c = json::parse(read_file(compile));
      out.compiled = c.value("ok", false);
      out.compile_message = c.value("message", "");
      out.diagnostics = c.value("diagnostics", "");
    } catch (const std::exception&) {
      out.compiled = false;
    }
  }
  for (std::size_t k = 0; k < r.runs.size(); ++k) {
    RunOutcome ro;
    const fs::path rep = dir / fmt::format("run{}.report.json", k);
    if (fs::exists(rep)) {
      try {
        ro.report = json::parse(read_file(rep));
      } catch (const std::exception&) {
        ro.report = json::object();
      }
    }
    bool all = true;
    for (std::size_t j = 0; j < r.runs[k].buffers.size(); ++j) {
      const fs::path p = dir / fmt::format("run{}_buf{}.out", k, j);
      if (!fs::exists(p)) {
        all = false;
        break;
      }
      const std::string s = read_file(p);
      ro.buffers.emplace_back(s.begin(), s.end());
    }
    ro.ran = all && ro.report.is_object() && ro.report.value("completed", false);
    if (!all) ro.buffers.clear();
    const fs::path t = dir / fmt::format("run{}.time_ms", k);
    if (fs::exists(t)) ro.median_ms = std::stod(read_file(t));
    out.runs.push_back(std::move(ro));
  }
  const fs::path hr = dir / "host_results.out";
  if (fs::exists(hr)) {
    const std::string s = read_file(hr);
    out.host_results.resize(s.size() / sizeof(int));
    std::memcpy(out.host_results.data(), s.data(), out.host_results.size() * sizeof(int));
  }
}

void run_child(const std::vector<std::string>& argv, const fs::path& dir, const Limits& limits,
               WorkerOutcome& out, const std::string& log_name) {
  const auto start = std::chrono::steady_clock::now();
  const fs::path log = dir / log_name;
  const pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);
    if (limits.memory_bytes != 0) {  // 0: no limit (a CUDA context reserves huge address space)
      rlimit mem{limits.memory_bytes, limits.memory_bytes};
      setrlimit(RLIMIT_AS, &mem);
    }
    rlimit core{0, 0};
    setrlimit(RLIMIT_CORE, &core);
    const int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      dup2(fd, 1);
      dup2(fd, 2);
      close(fd);
    }
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    std::fprintf(stderr, "grader: cannot start %s\n", args[0]);
    _exit(127);
  }
  out.started = pid > 0;
  int status = 0;
  for (;;) {
    const pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) break;
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (elapsed > limits.seconds) {
      kill(-pid, SIGKILL);
      waitpid(pid, &status, 0);
      out.timed_out = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  out.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const std::string text = read_file(log);
  out.output_tail = text.size() > 4000 ? text.substr(text.size() - 4000) : text;
}

}  // namespace internal

namespace {
using namespace internal;

class CpuBackend : public Backend {
 public:
  std::string mode() const override { return "cpu"; }
  std::string describe() const override {
    return "CPU model (banksim: the kernel runs on the CPU; wavefronts from the bank model, no "
           "timing)";
  }
  json facts() const override { return {{"mode", "cpu"}, {"gpu", nullptr}}; }
  WorkerOutcome run(const WorkerRequest& request, const fs::path& dir,
                    const Limits& limits) const override {
    WorkerOutcome out;
    write_request(request, dir);
    run_child({(self_dir() / "grade_worker").string(), dir.string()}, dir, limits, out);
    read_outcome(request, dir, out);
    return out;
  }
};

}  // namespace

fs::path course_root() {
  if (const char* env = std::getenv("COURSE_ROOT"); env != nullptr && *env != '\0') return env;
  return COURSE_SOURCE_DIR;
}

std::unique_ptr<Backend> make_backend(const std::string& mode, std::string* why) {
  const bool gpu_present = std::system("nvidia-smi -L >/dev/null 2>&1") == 0;
  if (mode == "cpu" || (mode == "auto" && !gpu_present)) return std::make_unique<CpuBackend>();
  if (mode == "gpu" || mode == "auto") {
    if (!gpu_present) {
      *why =
          "MODE=gpu: no NVIDIA GPU found (nvidia-smi -L failed); grade on the CPU with "
          "MODE=cpu, or run on a machine with a GPU";
      return nullptr;
    }
    auto gpu = make_gpu_backend(why);
    if (!gpu && mode == "auto") {
      std::fprintf(stderr, "grade: %s\ngrade: using the CPU model instead\n", why->c_str());
      return std::make_unique<CpuBackend>();
    }
    return gpu;
  }
  *why = "unknown MODE '" + mode + "': use cpu, gpu or auto";
  return nullptr;
}

}  // namespace grader
