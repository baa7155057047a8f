// backend.cpp - running a worker child process with limits and a report pipe, and the CPU
// backend (banksim in grade_worker).
#include "grader/backend.hpp"

#include "backend_internal.hpp"
#include "grader/sandbox.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <random>
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

void write_inputs(const WorkerJob& job, const fs::path& dir) {
  for (std::size_t k = 0; k < job.inputs.size(); ++k) {
    for (std::size_t j = 0; j < job.inputs[k].size(); ++j) {
      write_file(dir / fmt::format("run{}_buf{}.in", k, j), job.inputs[k][j]);
    }
  }
  if (!job.host_cases.empty()) {
    std::vector<unsigned char> bytes(job.host_cases.size() * sizeof(job.host_cases[0]));
    std::memcpy(bytes.data(), job.host_cases.data(), bytes.size());
    write_file(dir / "host_cases.in", bytes);
  }
  std::ofstream(dir / "request.json") << protocol::to_json(job.request).dump(1) << "\n";
}

void run_child(std::vector<std::string> argv, const fs::path& dir, const Limits& limits,
               WorkerOutcome& out, const std::string& log_name, const WorkerJob* report) {
  const auto start = std::chrono::steady_clock::now();
  const fs::path log = dir / log_name;
  int pipefd[2] = {-1, -1};
  if (report != nullptr) {
    if (pipe2(pipefd, O_CLOEXEC) != 0) {
      out.started = false;
      return;
    }
    for (auto& a : argv) {
      if (a == "{report_fd}") a = std::to_string(pipefd[1]);
    }
  }
  const pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);
    if (limits.memory_bytes != 0) {  // 0: no limit (a CUDA context reserves huge address space)
      rlimit mem{limits.memory_bytes, limits.memory_bytes};
      setrlimit(RLIMIT_AS, &mem);
    }
    rlimit core{0, 0};
    setrlimit(RLIMIT_CORE, &core);
    if (pipefd[1] >= 0) {
      close(pipefd[0]);
      fcntl(pipefd[1], F_SETFD, 0);  // the report pipe survives exec
    }
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
  std::string stream;
  if (pipefd[1] >= 0) {
    close(pipefd[1]);
    fcntl(pipefd[0], F_SETFL, O_NONBLOCK);
  }
  auto drain = [&]() {
    if (pipefd[0] < 0) return;
    char buf[1 << 16];
    for (;;) {
      const ssize_t n = read(pipefd[0], buf, sizeof buf);
      if (n <= 0) break;
      stream.append(buf, static_cast<std::size_t>(n));
    }
  };
  int status = 0;
  for (;;) {
    if (pipefd[0] >= 0) {
      pollfd p{pipefd[0], POLLIN, 0};
      poll(&p, 1, 5);
      drain();
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    const pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid || r < 0) break;
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (elapsed > limits.seconds) {
      kill(-pid, SIGKILL);
      waitpid(pid, &status, 0);
      out.timed_out = true;
      break;
    }
  }
  kill(-pid, SIGKILL);  // nothing the worker started outlives it
  drain();
  if (pipefd[0] >= 0) close(pipefd[0]);
  if (report != nullptr) out.report = protocol::decode(stream, report->request);
  out.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const std::string text = read_file(log);
  out.output_tail = text.size() > 4000 ? text.substr(text.size() - 4000) : text;
}

void show_file_as(WorkerOutcome& out, const std::string& copy, const std::string& shown) {
  if (shown.empty() || copy.empty() || copy == shown) return;
  const auto fix = [&](std::string& text) {
    for (std::size_t at = text.find(copy); at != std::string::npos; at = text.find(copy, at)) {
      text.replace(at, copy.size(), shown);
      at += shown.size();
    }
  };
  fix(out.report.compile.message);
  fix(out.report.compile.diagnostics);
  fix(out.output_tail);
  for (protocol::RunReport& run : out.report.runs) {
    fix(run.abort_reason);
    for (protocol::Issue& i : run.issues) {
      fix(i.file);
      fix(i.message);
    }
    for (protocol::Site& s : run.sites) fix(s.file);
    for (protocol::GlobalSite& g : run.global_sites) fix(g.file);
  }
}

}  // namespace internal

namespace internal {

void run_worker(std::vector<std::string> argv, SandboxSpec spec, bool sandboxed,
                const WorkerJob& job, WorkerOutcome& out) {
  int p[2];
  if (pipe2(p, O_CLOEXEC) != 0) {
    out.started = false;
    out.output_tail = "grader: cannot create the report pipe";
    return;
  }
  for (auto& a : argv) {
    if (a == "{report_fd}") a = std::to_string(p[1]);
  }
  spec.pass_fds = {p[1]};
  // The report: at most every buffer's bytes plus 64 MiB of JSON; the rest is read and dropped.
  std::size_t cap = std::size_t{64} << 20;
  for (const auto& run : job.request.runs) {
    for (std::size_t b : run.buffer_bytes) cap += b;
  }
  std::string stream;
  std::thread reader([&stream, cap, fd = p[0]] {
    char buf[1 << 16];
    for (;;) {
      const ssize_t n = read(fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      if (stream.size() < cap) stream.append(buf, static_cast<std::size_t>(n));
    }
  });
  SandboxResult r;
  try {
    r = sandboxed ? run_sandboxed(argv, spec) : run_unsandboxed(argv, spec);
  } catch (const std::exception& e) {
    r.exit_status = 127;
    r.error = e.what();
  }
  close(p[1]);  // the worker and everything it started are gone: the reader sees the end
  reader.join();
  close(p[0]);
  out.report = protocol::decode(stream, job.request);
  out.started = r.error.empty();
  out.timed_out = r.timed_out;
  out.exit_status = r.exit_status;
  out.seconds = r.seconds;
  std::string text = r.stdout_text + r.stderr_text;
  if (!r.error.empty()) text += "\ngrader: the worker could not be started: " + r.error + "\n";
  out.output_tail = text.size() > 4000 ? text.substr(text.size() - 4000) : text;
}

}  // namespace internal

namespace internal {

void add_loader_paths(SandboxSpec& spec) {
  const char* ld = std::getenv("LD_LIBRARY_PATH");
  if (ld == nullptr || *ld == '\0') return;
  // The loader's folders, visible inside (those under /usr already are).
  spec.extra_env.push_back(std::string("LD_LIBRARY_PATH=") + ld);
  std::istringstream dirs(ld);
  std::string d;
  while (std::getline(dirs, d, ':')) {
    std::error_code ec;
    if (d.empty() || d[0] != '/' || d.rfind("/usr/", 0) == 0 || !fs::is_directory(d, ec)) continue;
    if (std::find(spec.ro_paths.begin(), spec.ro_paths.end(), d) == spec.ro_paths.end())
      spec.ro_paths.push_back(d);
  }
}

unsigned next_sandbox_uid() {
  static std::atomic<unsigned> n{0};
  return kFirstSandboxUid + n++ % kSandboxUids;
}

void sweep_orphaned_sandboxes() {
  std::error_code ec;
  for (fs::directory_iterator it("/proc", ec), end; !ec && it != end; it.increment(ec)) {
    const std::string pid = it->path().filename().string();
    if (pid.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream st(it->path() / "status");
    std::string line;
    long ppid = -1, uid = -1;
    while (std::getline(st, line)) {
      if (line.rfind("PPid:", 0) == 0) ppid = std::atol(line.c_str() + 5);
      if (line.rfind("Uid:", 0) == 0) uid = std::atol(line.c_str() + 4);
    }
    if (ppid == 1 && uid >= kFirstSandboxUid && uid <= kCompileUid) {
      kill(static_cast<pid_t>(std::atol(pid.c_str())), SIGKILL);
    }
  }
}

}  // namespace internal

namespace {
using namespace internal;

class CpuBackend : public Backend {
 public:
  Capabilities capabilities() const override {
    Capabilities c;
    c.name = "cpu";
    c.batch_sizes = true;
    return c;
  }
  std::string describe() const override {
    return "CPU model (banksim: the kernel runs on the CPU; wavefronts from the bank model, no "
           "timing)";
  }
  json facts() const override { return {{"mode", "cpu"}, {"gpu", nullptr}}; }
  CpuBackend(bool sandboxed, fs::path cache, std::string widths)
      : sandboxed_(sandboxed), cache_(std::move(cache)), widths_(std::move(widths)) {
    // Found in every widths mode: nvcc's folder also locates the toolkit's <cuda/std/...>
    // headers, which banksim compiles with (and whose path is part of a module's cache key).
    find_nvcc_tools();
  }

  /// Compiles in one sandboxed step that may write only the compile cache (nothing of the
  /// student's file runs there), then runs in a second that sees the cache read-only and may
  /// write only its own folder. Host exercises (a .so the worker builds and calls): one step.
  WorkerOutcome run(const WorkerJob& original, const fs::path& dir,
                    const Limits& limits) const override {
    WorkerJob job = original;
    // "auto" with nvcc and nvdisasm at hand: clang's widths first; only where the run saw two
    // accesses nvcc could merge (an unrolled GEMM loop, a struct copy) is nvcc run (1.3 s a
    // file) and the job run again with its widths.
    const bool probe = widths_ == "auto" && job.request.kind == "kernel" && tools_.size() == 2;
    if (probe && job.nvcc_widths_expected) {
      // An exercise whose reference nvcc merges (the GEMM tile): nvcc's widths at once.
      job.request.widths = "nvcc";
      return run_once(job, dir, limits);
    }
    job.request.widths = probe ? "probe" : widths_;
    WorkerOutcome first = run_once(job, dir, limits);
    if (!probe || !first.report.compile.ok) return first;
    bool mergeable = false;
    for (const auto& r : first.report.runs) mergeable = mergeable || r.mergeable;
    if (!mergeable) return first;
    job.request.widths = "nvcc";
    // A fresh folder beside the first: the first run's student code could write its own, and the
    // grader must not write inputs through whatever it left there (a link, say).
    const fs::path again = dir.parent_path() / (dir.filename().string() + "-nvcc");
    fs::remove_all(again);
    fs::create_directories(again);
    WorkerOutcome second = run_once(job, again, limits);
    second.seconds += first.seconds;
    return second;
  }

 private:
  WorkerOutcome run_once(const WorkerJob& original, const fs::path& dir,
                         const Limits& limits) const {
    WorkerOutcome out;
    // The file under test is copied out of the submission: the sandbox then sees that one file
    // (not the folder around it), and its path is plain ASCII whatever the folder was called.
    // It goes to the cache's sources/<content hash>/: identical files (other sizes, other
    // students) then share one compiled module. Written by the grader only, atomically.
    WorkerJob job = original;
    const std::string text = read_file(job.request.file);
    const fs::path folder =
        cache_ / "sources" / fmt::format("{:016x}", std::hash<std::string>{}(text));
    const fs::path copy = folder / fs::path(job.request.file).filename();
    if (read_file(copy) != text || !fs::exists(copy)) {
      fs::create_directories(folder);
      const fs::path tmp = copy.string() + fmt::format(".{:08x}{:08x}.tmp", std::random_device{}(),
                                                       std::random_device{}());
      std::ofstream(tmp, std::ios::binary) << text;
      fs::rename(tmp, copy);
    }
    job.request.file = copy.string();
    write_inputs(job, dir);
    const std::string worker = (self_dir() / "grade_worker").string();
    SandboxSpec spec;
    spec.ro_paths = {self_dir(), self_dir().parent_path() / "lib",
                     course_root() / "gpu" / "include", course_root() / "banksim" / "include"};
    spec.ro_paths.erase(std::remove_if(spec.ro_paths.begin(), spec.ro_paths.end(),
                                       [](const fs::path& p) { return !fs::exists(p); }),
                        spec.ro_paths.end());
    // The toolkit (nvcc, nvdisasm, its <cuda/std/...> headers): by absolute path, in both steps
    // (the run step finds the module by the same key, which names the headers' folder); a
    // toolkit outside /usr is mounted read-only.
    for (const auto& [var, path] : tools_) {
      spec.extra_env.push_back(var + "=" + path.string());
      const fs::path top = path.parent_path().parent_path();
      if (path.string().rfind("/usr/", 0) != 0 && fs::exists(top)) spec.ro_paths.push_back(top);
    }
    spec.cpu_seconds = limits.seconds;
    spec.wall_seconds = limits.seconds;
    spec.memory_bytes = limits.memory_bytes;
    // The libraries the worker was linked with where they are not under /usr (a GPU box with
    // the course's libraries unpacked elsewhere, found through LD_LIBRARY_PATH).
    add_loader_paths(spec);
    // Messages name the file as the student knows it, not by the cache's copy.
    const std::string shown = job.shown_file;
    if (job.request.kind == "kernel") {
      fs::create_directories(cache_);
      SandboxSpec build = spec;
      build.ro_paths.push_back(dir);
      build.rw_dir = cache_;
      build.sandbox_uid = kCompileUid;
      // nvcc (cudafe++, cicc, ptxas, a host preprocessor) and nvdisasm read nvcc's widths here,
      // by absolute path; a toolkit outside /usr is mounted read-only.
      build.processes = std::max(build.processes, 128);
      run_worker({worker, dir.string(), "--report-fd", "{report_fd}", "--cache", cache_.string(),
                  "--compile-only"},
                 build, sandboxed_, job, out);
      if (!out.report.compile.ok) {
        show_file_as(out, copy.string(), shown);
        return out;
      }
    }
    spec.ro_paths.push_back(cache_);
    spec.rw_dir = dir;
    spec.sandbox_uid = next_sandbox_uid();
    WorkerOutcome ran;
    std::vector<std::string> argv = {worker, dir.string(), "--report-fd", "{report_fd}"};
    if (job.request.kind == "kernel") argv.insert(argv.end(), {"--cache", cache_.string()});
    run_worker(argv, spec, sandboxed_, job, ran);
    ran.seconds += out.seconds;
    show_file_as(ran, copy.string(), shown);
    return ran;
  }

 private:
  /// nvcc and nvdisasm as this process finds them ($BANKSIM_NVCC / $BANKSIM_NVDISASM, the
  /// PATH, nvdisasm beside nvcc), for the compile step's sandbox, whose PATH has only /usr/bin
  /// and /usr/local/bin. banksim says in its report when it found neither.
  void find_nvcc_tools() {
    auto on_path = [](const std::string& name) -> fs::path {
      if (name.find('/') != std::string::npos) return access(name.c_str(), X_OK) == 0 ? name : "";
      const char* path = std::getenv("PATH");
      std::istringstream dirs(path != nullptr ? path : "");
      std::string dir;
      while (std::getline(dirs, dir, ':')) {
        if (!dir.empty() && access((dir + "/" + name).c_str(), X_OK) == 0) return dir + "/" + name;
      }
      return {};
    };
    auto env = [](const char* var, const char* fallback) {
      const char* v = std::getenv(var);
      return std::string(v != nullptr && *v != '\0' ? v : fallback);
    };
    std::error_code ec;
    const fs::path nvcc = on_path(env("BANKSIM_NVCC", "nvcc"));
    if (nvcc.empty()) return;
    fs::path nvdisasm = on_path(env("BANKSIM_NVDISASM", "nvdisasm"));
    if (nvdisasm.empty())
      nvdisasm = on_path((fs::canonical(nvcc, ec).parent_path() / "nvdisasm").string());
    // As root the compile step runs as another uid, who must be able to enter the tool's
    // folders (a toolkit under /root is not usable there: banksim then says it used clang's).
    auto usable = [](const fs::path& p) {
      if (geteuid() != 0) return true;
      for (fs::path d = p.parent_path(); !d.empty() && d != d.root_path(); d = d.parent_path()) {
        struct stat st {};
        if (stat(d.c_str(), &st) != 0 || (st.st_mode & S_IXOTH) == 0) return false;
      }
      return true;
    };
    const fs::path cc = fs::canonical(nvcc, ec);
    if (ec || !usable(cc)) return;
    tools_.emplace_back("BANKSIM_NVCC", cc);
    const fs::path dis = nvdisasm.empty() ? fs::path() : fs::canonical(nvdisasm, ec);
    if (!dis.empty() && !ec && usable(dis)) tools_.emplace_back("BANKSIM_NVDISASM", dis);
  }

  bool sandboxed_;
  fs::path cache_;
  std::string widths_;
  std::vector<std::pair<std::string, fs::path>> tools_;
};

}  // namespace

fs::path course_root() {
  if (const char* env = std::getenv("COURSE_ROOT"); env != nullptr && *env != '\0') return env;
  return COURSE_SOURCE_DIR;
}

std::unique_ptr<Backend> make_cpu_backend(const BackendOptions& options) {
  if (options.sandbox) sweep_orphaned_sandboxes();
  return std::make_unique<CpuBackend>(options.sandbox, options.cache_dir, options.widths);
}

std::unique_ptr<Backend> make_backend(const std::string& mode, const BackendOptions& options,
                                      std::string* why) {
  if (options.sandbox && !sandbox_available(why)) {
    *why = "no sandbox for student code: " + *why;
    return nullptr;
  }
  const bool gpu_present = std::system("nvidia-smi -L >/dev/null 2>&1") == 0;
  if (mode == "cpu" || (mode == "auto" && !gpu_present)) return make_cpu_backend(options);
  if (mode == "gpu" || mode == "auto") {
    if (!gpu_present) {
      *why =
          "MODE=gpu: no NVIDIA GPU found (nvidia-smi -L failed); grade on the CPU with "
          "MODE=cpu, or run on a machine with a GPU";
      return nullptr;
    }
    auto gpu = make_gpu_backend(options, why);
    if (!gpu && mode == "auto") {
      std::fprintf(stderr, "grade: %s\ngrade: using the CPU model instead\n", why->c_str());
      return make_cpu_backend(options);
    }
    return gpu;
  }
  *why = "unknown MODE '" + mode + "': use cpu, gpu or auto";
  return nullptr;
}

}  // namespace grader
