// worker_process.cpp - running a worker child process with limits and a report pipe, in the
// sandbox or not, and what the CPU and GPU backends share about it (inputs, file names shown,
// sandbox uids, the loader's folders).
#include "grader/backend.hpp"

#include "backend_internal.hpp"
#include "grader/sandbox.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
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
  spec.pass_fds.push_back(p[1]);
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

GoWord::GoWord(std::vector<std::string>& argv, SandboxSpec& spec) {
  int pair[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) {
    throw std::runtime_error(std::string("grader: cannot create the GPU's go socket: ") +
                             std::strerror(errno));
  }
  ours_ = pair[0];
  theirs_ = pair[1];
  for (auto& a : argv) {
    if (a == "{go_fd}") a = std::to_string(theirs_);
  }
  spec.pass_fds.push_back(theirs_);
}

void GoWord::send_after(std::function<void()> ready, std::function<void()> done) {
  thread_ = std::thread([this, ready = std::move(ready), done = std::move(done)] {
    ready();
    const char word = 'g';
    // MSG_NOSIGNAL: a child already gone is no reason to stop the grader.
    while (send(ours_, &word, 1, MSG_NOSIGNAL) < 0 && errno == EINTR) {
    }
    if (!done) return;
    // The child's word that it is done with the GPU; or nothing, once join() shuts the socket
    // (the child has ended): either way the step is done with it.
    char back = 0;
    while (recv(ours_, &back, 1, 0) < 0 && errno == EINTR) {
    }
    done();
  });
}

void GoWord::join() {
  if (!thread_.joinable()) return;
  // A thread still waiting for the child's word stops waiting: the child has ended.
  shutdown(ours_, SHUT_RDWR);
  thread_.join();
}

void run_gated(std::vector<std::string> argv, const SandboxSpec& spec,
               const std::filesystem::path& no_go_file, std::atomic<bool>& passes,
               const std::function<void()>& take, const std::function<void()>& let_go,
               const GpuStep& step) {
  std::error_code ec;
  if (passes) {
    std::vector<std::string> a = argv;
    a.insert(a.end(), {"--go-fd", "{go_fd}"});
    SandboxSpec t = spec;
    // The worker waits for the word in its sandbox: that wait is not charged to its limit
    // (no limit while it lasts, then the limit plus the wait).
    auto waited = std::make_shared<std::atomic<double>>(1e9);
    t.wall_extra = waited;
    fs::remove(no_go_file, ec);
    GoWord go(a, t);
    go.send_after(
        [&take, waited] {
          const auto t0 = std::chrono::steady_clock::now();
          take();
          waited->store(
              std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
        },
        let_go);
    step(a, t);
    go.join();  // let_go has run: at the worker's answer, or here once it ended
    if (!fs::exists(no_go_file, ec)) return;
    passes = false;
  }
  take();
  step(argv, spec);
  let_go();
}

std::string gpu_usage_line(double alone_seconds, int alone_steps, double shared_seconds,
                           int shared_steps, int gatherings, double idle_seconds,
                           const std::vector<std::string>& lock_first) {
  std::string line = fmt::format(
      "GPU held alone {:.0f} s ({} steps), by sanitizers only {:.0f} s ({} steps, {} "
      "gatherings), by neither {:.0f} s",
      alone_seconds, alone_steps, shared_seconds, shared_steps, gatherings, idle_seconds);
  if (!lock_first.empty()) {
    const bool one = lock_first.size() == 1;
    line += fmt::format("; the lock taken before {} {} ({} not pass the go word on)",
                        fmt::join(lock_first, ", "), one ? "starts" : "start",
                        one ? "it did" : "they did");
  }
  return line;
}

GoWord::~GoWord() {
  join();
  if (ours_ >= 0) close(ours_);
  if (theirs_ >= 0) close(theirs_);
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

}  // namespace grader
