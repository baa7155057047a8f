// sandbox.cpp - runs untrusted programs under bubblewrap with rlimits, a wall-clock
// timeout and capped stdout/stderr capture. See grader/sandbox.hpp for the interface.
// Over 500 lines on purpose: the fork/exec path must be async-signal-safe code prepared before
// fork (argv, environment, limits), and splitting it would separate that preparation from the
// code that relies on it.
//
// How a sandboxed run works, and what was verified (Debian 12, bubblewrap 0.8.0, kernel 6.18):
//  * The parent forks a small "shim" (async-signal-safe code only: the grader may be threaded):
//    it resets signals, starts a new session, becomes a child subreaper and forks again. The
//    grandchild points 0/1/2 at /dev/null and two pipes, marks every other descriptor
//    close-on-exec except pass_fds and bwrap's status pipe, sets the rlimits (inherited by bwrap
//    and everything it starts), switches uid when root (below), and execs bwrap with argv
//    (never a shell string) and a minimal environment. Errors before exec come back through a
//    close-on-exec pipe.
//  * Why the shim: bwrap's outer process exits as soon as the program does, without waiting
//    for the sandbox's init (bwrap inside the pid namespace) to finish killing the rest. Init
//    then becomes a zombie of the host's init: it still counts against RLIMIT_NPROC of the
//    sandbox uid (measured: quick successive runs with processes=16 could not start one more
//    process), and it is never reaped when the grader is pid 1 of a container. Reparented to
//    the shim instead, it is reaped; the shim exits with bwrap's status only when all is gone,
//    and kills what bwrap left behind if that takes more than a second.
//  * bwrap: --unshare-all (net, pid, ipc, uts, cgroup) plus an explicit --unshare-user (needed
//    for --uid/--gid and --disable-userns), --disable-userns, --die-with-parent, --new-session,
//    --cap-drop ALL, --uid/--gid 65534, fresh /proc, minimal /dev (remounted read-only, with the
//    listed device nodes bound in), sized tmpfs on /tmp and /dev/shm (tmpfs pages are RAM that
//    RLIMIT_AS does not count), read-only /usr, /bin, /sbin, /lib* (recreated as symlinks on
//    merged-/usr systems), /etc/ld.so.cache and /etc/alternatives only, ro_paths, rw_dir.
//    Binds are ordered parents first, so a rw_dir inside a ro_path stays writable.
//  * Nothing outlives the run: the program runs in its own pid namespace; when its init dies
//    the kernel kills the rest. bwrap writes init's host pid to --json-status-fd; on timeout the
//    parent SIGKILLs init (through a pidfd), and the process group of shim and bwrap a second
//    later if they are still there. The status pipe also carries "exit-code"; its absence
//    means bwrap failed before the program started.
//  * RLIMIT_NPROC: the kernel counts it per (user namespace, uid) at every level of the
//    namespace tree, but exempts tasks whose real uid is host root. Running bwrap as root with
//    --uid 65534 therefore does NOT limit anything: the inside uid maps to host root (measured:
//    44 processes with a limit of 16). What works: when the grader is root, the child drops
//    supplementary groups and calls setresgid/setresuid(sandbox_uid) before exec'ing bwrap
//    (bwrap works unprivileged here). Then the limit counts exactly the sandbox's tasks, both
//    bwrap processes included (measured: 13 background sleeps + sh + 2 bwrap = 16), and also
//    every other task of that uid on the host (hence a dedicated uid per concurrent run). The
//    uid switch means rw_dir is chowned to sandbox_uid, and ro paths must be world-readable.
//  * Folders others cannot enter (a course cloned as root into /root or a `mktemp -d` folder):
//    bwrap, running as sandbox_uid, could not look its sources up there. The child, still root,
//    then covers each such folder in a private mount namespace with a tmpfs holding only the
//    binds' paths (sandbox_reach.hpp); under uid isolation the same makes the program's paths
//    reachable. Nothing changes on the host, and the view inside is the same.
//    When the grader is not root it cannot switch uid; the outer level then counts all of the
//    user's tasks, so the limit is set to `processes` + the user's current task count.
//  * Output: both pipes are read until EOF; bytes past output_cap are read and dropped.
//  * run_unsandboxed: no shim, no bwrap, no uid switch; the forked child execs the program in a
//    new session, and when it exits its process group is killed (processes that call setsid
//    or daemonize can survive, and their zombies go to the host's init).
#include "grader/sandbox.hpp"

#include "sandbox_reach.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <system_error>
#include <thread>

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

namespace grader {
namespace {
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using Resource = decltype(RLIMIT_CPU);  // an enum in glibc, int elsewhere

constexpr unsigned kInsideId = 65534;  // uid and gid seen inside the sandbox
constexpr const char* kInstallHint =
    "install it with `apt-get install bubblewrap` (Debian/Ubuntu) or `dnf install bubblewrap` "
    "(Fedora); or pass --no-sandbox to grade only your own, trusted code";

// An owned file descriptor.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(Fd&& other) noexcept : fd_(other.release()) {}
  Fd& operator=(Fd&& other) noexcept {
    reset(other.release());
    return *this;
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { reset(); }
  int get() const { return fd_; }
  int release() {
    int fd = fd_;
    fd_ = -1;
    return fd;
  }
  void reset(int fd = -1) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }
  explicit operator bool() const { return fd_ >= 0; }

 private:
  int fd_ = -1;
};

[[noreturn]] void throw_errno(const char* what) {
  throw std::system_error(errno, std::generic_category(), what);
}

// Moves fd to a number >= 3 (close-on-exec), so that the child's dup2 onto 0/1/2 cannot clobber
// it even when the grader runs with stdin/stdout/stderr closed.
Fd above_stdio(Fd fd) {
  if (fd.get() >= 3) return fd;
  int moved = fcntl(fd.get(), F_DUPFD_CLOEXEC, 3);
  if (moved < 0) throw_errno("fcntl(F_DUPFD_CLOEXEC)");
  return Fd(moved);
}

struct Pipe {
  Fd read, write;
};

Pipe make_pipe() {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) throw_errno("pipe2");
  return {above_stdio(Fd(fds[0])), above_stdio(Fd(fds[1]))};
}

int open_pidfd(pid_t pid) {
#ifdef SYS_pidfd_open
  return static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
#else
  (void)pid;
  return -1;
#endif
}

// SIGKILLs a process, through its pidfd when there is one (immune to pid reuse).
void kill_process(pid_t pid, const Fd& pidfd) {
#ifdef SYS_pidfd_send_signal
  if (pidfd && syscall(SYS_pidfd_send_signal, pidfd.get(), SIGKILL, nullptr, 0u) == 0) return;
#endif
  if (pid > 0) kill(pid, SIGKILL);
}

std::string format_bytes(std::size_t n) {
  if (n >= (1u << 20) && n % (1u << 20) == 0) return std::to_string(n >> 20) + " MiB";
  if (n >= 1024 && n % 1024 == 0) return std::to_string(n >> 10) + " KiB";
  return std::to_string(n) + " bytes";
}

// One captured stream: keeps the first `cap` bytes, counts the rest as cut.
struct Capture {
  std::size_t cap = 0;
  std::string text;
  bool cut = false;
  void add(const char* data, std::size_t n) {
    std::size_t room = cap - std::min(cap, text.size());
    if (n > room) {
      cut = true;
      n = room;
    }
    text.append(data, n);
  }
  void finish() {
    if (cut) text += "\n[... output cut at " + format_bytes(cap) + " by the grader]\n";
  }
};

// Everything the forked child needs, prepared before fork (no allocation after it).
struct Plan {
  std::string exe;
  std::vector<std::string> args;
  std::vector<std::string> env;
  std::vector<std::pair<Resource, rlimit>> limits;
  std::vector<int> keep_fds;  // stay open across exec at the same number
  bool switch_uid = false;
  unsigned uid = 0;
  std::string cwd;
  double wall_seconds = 0;
  std::shared_ptr<const std::atomic<double>> wall_extra;  // SandboxSpec::wall_extra
  std::size_t output_cap = 0;
  int status_fd = -1;     // bwrap's --json-status-fd write end, or -1 when unsandboxed
  bool kill_uid = false;  // Isolation::kUid: every process of `uid` dies with the run
  internal::Reach reach;  // folders the uid cannot enter on the way to its paths (as root)
};

enum ChildStage : int {
  kStageFds = 1,
  kStageReach,
  kStageLimits,
  kStageUid,
  kStageChdir,
  kStageExec
};

// What the forked child needs, as plain pointers into memory prepared before fork.
struct ChildArgs {
  const char* exe;
  char* const* argv;
  char* const* envp;
  const std::pair<Resource, rlimit>* limits;
  std::size_t n_limits;
  const int* keep;  // descriptors that stay open across exec
  std::size_t n_keep;
  int in_fd, out_fd, err_fd;
  int report_fd;  // close-on-exec pipe: {stage, errno} when something fails before exec
  bool switch_uid;
  unsigned uid;
  const char* cwd;
  bool reaper;                   // sandboxed: stay as a subreaper between the grader and bwrap
  const internal::Reach* reach;  // null: nothing to make reachable
};

[[noreturn]] void child_fail(int report_fd, int stage) {
  int msg[2] = {stage, errno};
  ssize_t ignored = write(report_fd, msg, sizeof msg);
  (void)ignored;
  _exit(127);
}

void close_all_from(int first) {
#ifdef SYS_close_range
  if (syscall(SYS_close_range, static_cast<unsigned>(first), ~0u, 0u) == 0) return;
#endif
  rlimit nofile;
  int max_fd = getrlimit(RLIMIT_NOFILE, &nofile) == 0 && nofile.rlim_cur < (1u << 20)
                   ? static_cast<int>(nofile.rlim_cur)
                   : (1 << 20);
  for (int fd = first; fd < max_fd; ++fd) close(fd);
}

// Sets up descriptors, limits and uid, then execs. Async-signal-safe calls only.
[[noreturn]] void child_exec(const ChildArgs& c, pid_t parent) {
  if (dup2(c.in_fd, 0) < 0 || dup2(c.out_fd, 1) < 0 || dup2(c.err_fd, 2) < 0) {
    child_fail(c.report_fd, kStageFds);
  }
  bool marked = false;
#ifdef SYS_close_range
  marked = syscall(SYS_close_range, 3u, ~0u, CLOSE_RANGE_CLOEXEC) == 0;
#endif
  if (!marked) {  // kernel < 5.11: close what is not kept (report_fd is close-on-exec already)
    rlimit nofile;
    int max_fd = getrlimit(RLIMIT_NOFILE, &nofile) == 0 && nofile.rlim_cur < (1u << 20)
                     ? static_cast<int>(nofile.rlim_cur)
                     : (1 << 20);
    for (int fd = 3; fd < max_fd; ++fd) {
      bool kept = fd == c.report_fd;
      for (std::size_t i = 0; i < c.n_keep; ++i) kept = kept || c.keep[i] == fd;
      if (!kept) close(fd);
    }
  }
  for (std::size_t i = 0; i < c.n_keep; ++i) {
    if (fcntl(c.keep[i], F_SETFD, 0) != 0) child_fail(c.report_fd, kStageFds);
  }
  if (c.reach != nullptr) {  // as root, before the limits and the uid switch
    if (const int err = internal::apply_reach(*c.reach); err != 0) {
      errno = err;
      child_fail(c.report_fd, kStageReach);
    }
  }
  for (std::size_t i = 0; i < c.n_limits; ++i) {
    if (setrlimit(c.limits[i].first, &c.limits[i].second) != 0) {
      child_fail(c.report_fd, kStageLimits);
    }
  }
  if (c.switch_uid) {  // raw syscalls: this thread only, no glibc setxid broadcast after fork
    if (syscall(SYS_setgroups, 0, nullptr) != 0 ||
        syscall(SYS_setresgid, c.uid, c.uid, c.uid) != 0 ||
        syscall(SYS_setresuid, c.uid, c.uid, c.uid) != 0) {
      child_fail(c.report_fd, kStageUid);
    }
  }
  prctl(PR_SET_PDEATHSIG, SIGKILL);  // after the uid switch, which clears it
  if (getppid() != parent) _exit(127);
  if (chdir(c.cwd) != 0) child_fail(c.report_fd, kStageChdir);
  execve(c.exe, c.argv, c.envp);
  child_fail(c.report_fd, kStageExec);
}

void on_alarm(int) {}

// SIGKILLs the children of process `pid` (single-threaded), as listed by
// /proc/<pid>/task/<pid>/children. Async-signal-safe: also used in the forked shim.
void kill_children(pid_t pid) {
  char path[64] = "/proc/";
  std::size_t len = 6;
  for (int copy = 0; copy < 2; ++copy) {
    char digits[16];
    int n = 0;
    for (long v = pid; v > 0 && n < 16; v /= 10) digits[n++] = static_cast<char>('0' + v % 10);
    while (n > 0) path[len++] = digits[--n];
    const char* tail = copy == 0 ? "/task/" : "/children";
    for (const char* t = tail; *t; ++t) path[len++] = *t;
  }
  path[len] = '\0';
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  char buf[4096];
  long child = 0;
  ssize_t n;
  while ((n = read(fd, buf, sizeof buf)) > 0) {
    for (ssize_t i = 0; i < n; ++i) {
      if (buf[i] >= '0' && buf[i] <= '9') {
        child = child * 10 + (buf[i] - '0');
      } else if (child > 0) {
        kill(static_cast<pid_t>(child), SIGKILL);
        child = 0;
      }
    }
  }
  if (child > 0) kill(static_cast<pid_t>(child), SIGKILL);
  close(fd);
}

// The forked child. Unsandboxed it execs the program. Sandboxed it stays as a child subreaper
// and execs bwrap in a grandchild: bwrap's outer process exits as soon as the program does,
// without reaping the sandbox's init, which then would linger as a zombie of the host's init
// (counted against RLIMIT_NPROC of the sandbox uid, and never reaped when the grader is pid 1
// of a container). Here it is reparented to the shim, which reaps everything, then exits with
// bwrap's status: so when the shim has exited, nothing of the sandbox is left.
[[noreturn]] void child_main(const ChildArgs& c, pid_t grader) {
  struct sigaction dfl;
  std::memset(&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  for (int sig = 1; sig < NSIG; ++sig) sigaction(sig, &dfl, nullptr);  // fails for KILL/STOP
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  if (setsid() < 0) child_fail(c.report_fd, kStageFds);
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != grader) _exit(127);
  if (!c.reaper) child_exec(c, grader);

  prctl(PR_SET_CHILD_SUBREAPER, 1);
  const pid_t self = getpid();
  const pid_t bwrap = fork();
  if (bwrap < 0) child_fail(c.report_fd, kStageExec);
  if (bwrap == 0) child_exec(c, self);
  close_all_from(0);
  struct sigaction wake;  // SIGALRM interrupts waitpid (no SA_RESTART)
  std::memset(&wake, 0, sizeof wake);
  wake.sa_handler = on_alarm;
  sigaction(SIGALRM, &wake, nullptr);
  int bwrap_status = 0;
  bool bwrap_done = false;
  for (;;) {
    int status;
    pid_t done = waitpid(-1, &status, __WALL);
    if (done < 0 && errno == EINTR) {
      // bwrap exited a second ago and something it started (normally the sandbox's init,
      // busy emptying its pid namespace) is still there: kill it.
      if (bwrap_done) kill_children(self);
      alarm(1);
      continue;
    }
    if (done < 0) break;  // ECHILD: everything reaped
    if (done == bwrap) {
      bwrap_status = status;
      bwrap_done = true;
      alarm(1);
    }
  }
  _exit(WIFEXITED(bwrap_status) ? WEXITSTATUS(bwrap_status) : 128 + WTERMSIG(bwrap_status));
}

std::string stage_text(int stage, const Plan& plan) {
  switch (stage) {
    case kStageFds:
      return "setting up file descriptors";
    case kStageReach: {
      std::string closed;
      for (const auto& dir : plan.reach.overlays) closed += (closed.empty() ? "" : ", ") + dir;
      return "making the sandbox's folders reachable for uid " + std::to_string(plan.uid) +
             " through " + closed +
             ", which other users cannot enter (binds in a private mount namespace, which needs "
             "root's CAP_SYS_ADMIN)";
    }
    case kStageLimits:
      return "setting resource limits";
    case kStageUid:
      return "switching to uid " + std::to_string(plan.uid);
    case kStageChdir:
      return "changing directory to " + plan.cwd;
    default:
      return "starting " + plan.exe;
  }
}

// The number after "key": in bwrap's status output (one JSON document per line), or -1 while
// that line is missing or incomplete (a half-read pid must never be used).
long json_number(const std::string& text, const std::string& key) {
  std::size_t at = text.find("\"" + key + "\":");
  if (at == std::string::npos || text.find('\n', at) == std::string::npos) return -1;
  return std::strtol(text.c_str() + at + key.size() + 3, nullptr, 10);
}

int status_code(int wait_status) {
  if (WIFEXITED(wait_status)) return WEXITSTATUS(wait_status);
  if (WIFSIGNALED(wait_status)) return 128 + WTERMSIG(wait_status);
  return 127;
}

// Waits (bounded) until the sandbox's init has exited, which implies its pid namespace is empty,
// and kills it if it has not. Normally it is long gone (reaped by bwrap or the shim); this
// matters only when the shim itself had to be killed. Needs a pidfd: no guessing with bare pids.
void wait_for_sandbox_end(const Fd& init_fd) {
  if (!init_fd) return;
  for (int attempt = 0; attempt < 2; ++attempt) {
    pollfd p{init_fd.get(), POLLIN, 0};
    if (poll(&p, 1, 2000) > 0) return;
    kill_process(-1, init_fd);
  }
}

// Kills every process of `uid` (Isolation::kUid: a run's own uid), escaped ones included: a
// child that takes the uid and signals -1 reaches exactly the processes of that uid.
void kill_all_of_uid(unsigned uid) {
  const pid_t killer = fork();
  if (killer == 0) {
    if (syscall(SYS_setgroups, 0, nullptr) == 0 && syscall(SYS_setresgid, uid, uid, uid) == 0 &&
        syscall(SYS_setresuid, uid, uid, uid) == 0) {
      kill(-1, SIGKILL);
    }
    _exit(0);
  }
  if (killer > 0) {
    while (waitpid(killer, nullptr, 0) < 0 && errno == EINTR) {
    }
  }
}

SandboxResult run_plan(const Plan& plan, Fd status_read, Fd status_write) {
  SandboxResult result;
  const auto start = Clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };

  Pipe out = make_pipe(), err = make_pipe(), report = make_pipe();
  Fd dev_null(open("/dev/null", O_RDONLY | O_CLOEXEC));
  if (!dev_null) throw_errno("open /dev/null");
  dev_null = above_stdio(std::move(dev_null));

  std::vector<char*> argv, envp;
  for (const auto& a : plan.args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  for (const auto& e : plan.env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  std::vector<int> keep = plan.keep_fds;
  if (plan.status_fd >= 0) keep.push_back(plan.status_fd);
  const ChildArgs child{plan.exe.c_str(),
                        argv.data(),
                        envp.data(),
                        plan.limits.data(),
                        plan.limits.size(),
                        keep.data(),
                        keep.size(),
                        dev_null.get(),
                        out.write.get(),
                        err.write.get(),
                        report.write.get(),
                        plan.switch_uid,
                        plan.uid,
                        plan.cwd.c_str(),
                        plan.status_fd >= 0,
                        plan.reach.empty() ? nullptr : &plan.reach};
  const pid_t grader = getpid();

  const pid_t pid = fork();
  if (pid < 0) {
    result.exit_status = 127;
    result.error = std::string("fork failed: ") + std::strerror(errno);
    return result;
  }
  if (pid == 0) child_main(child, grader);
  out.write.reset();
  err.write.reset();
  report.write.reset();
  dev_null.reset();
  status_write.reset();

  int msg[2];
  std::size_t got = 0;
  while (got < sizeof msg) {
    ssize_t n = read(report.read.get(), reinterpret_cast<char*>(msg) + got, sizeof msg - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  if (got == sizeof msg) {  // the child failed before or at exec
    int ignored;
    while (waitpid(pid, &ignored, 0) < 0 && errno == EINTR) {
    }
    result.exit_status = 127;
    result.error = stage_text(msg[0], plan) + " failed: " + std::strerror(msg[1]);
    result.seconds = elapsed();
    return result;
  }

  Fd child_fd(open_pidfd(pid));
  Fd init_fd;  // pidfd of the sandbox's init (bwrap inside the pid namespace)
  pid_t init_pid = -1;
  std::string status_text;
  Capture cap_out, cap_err;
  cap_out.cap = cap_err.cap = plan.output_cap;
  Fd out_fd = std::move(out.read), err_fd = std::move(err.read);
  // The limit, with what the caller has added to it so far (SandboxSpec::wall_extra).
  const auto deadline_now = [&] {
    const double extra = plan.wall_extra ? plan.wall_extra->load() : 0.0;
    return start + std::chrono::duration_cast<Clock::duration>(
                       std::chrono::duration<double>(std::max(0.0, plan.wall_seconds + extra)));
  };
  const auto drain_grace = std::chrono::seconds(1);
  bool child_done = false, killed = false;
  int wait_status = 0;
  Clock::time_point drain_until{}, hard_kill_at{};
  std::vector<char> buf(1 << 16);

  for (;;) {
    if (!child_done) {
      siginfo_t info;
      std::memset(&info, 0, sizeof info);
      if (waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
          info.si_pid == pid) {
        kill(-pid, SIGKILL);  // stragglers of its process group; the zombie still holds the id
        if (plan.kill_uid) kill_all_of_uid(plan.uid);
        while (waitpid(pid, &wait_status, 0) < 0 && errno == EINTR) {
        }
        child_done = true;
        drain_until = Clock::now() + drain_grace;
        child_fd.reset();
      }
    }
    const bool streams_open = out_fd || err_fd || status_read;
    if (child_done && !streams_open) break;
    const auto now = Clock::now();
    if (child_done && now >= drain_until) break;
    const auto deadline = deadline_now();
    if (!child_done && !killed && now >= deadline) {
      // Killing the sandbox's init empties its pid namespace; then bwrap and the shim exit on
      // their own, having reaped everything. Init not known yet: kill bwrap, and the shim
      // kills what is left. The process group (shim and bwrap; or the unsandboxed program's
      // group) is the last resort, a second later.
      result.timed_out = true;
      killed = true;
      hard_kill_at = now + drain_grace;
      if (init_pid > 0) {
        kill_process(init_pid, init_fd);
      } else if (plan.status_fd >= 0) {
        kill_children(pid);  // bwrap: its init then dies too (--die-with-parent) or is reaped
      } else {
        kill(-pid, SIGKILL);
        if (plan.kill_uid) kill_all_of_uid(plan.uid);
      }
    }
    if (!child_done && killed && now >= hard_kill_at) kill(-pid, SIGKILL);

    std::vector<pollfd> fds;
    for (const Fd* fd : {&out_fd, &err_fd, &status_read, &child_fd}) {
      if (*fd) fds.push_back({fd->get(), POLLIN, 0});
    }
    Clock::time_point until = child_done ? drain_until : killed ? hard_kill_at : deadline;
    if (until <= now) until = now + std::chrono::milliseconds(10);
    auto wait_ms = std::chrono::ceil<std::chrono::milliseconds>(until - now).count();
    if (!child_done && !child_fd) wait_ms = std::min<decltype(wait_ms)>(wait_ms, 10);
    if (fds.empty()) {
      std::this_thread::sleep_for(
          std::chrono::milliseconds(std::max<decltype(wait_ms)>(wait_ms, 0)));
      continue;
    }
    int ready =
        poll(fds.data(), fds.size(), static_cast<int>(std::max<decltype(wait_ms)>(wait_ms, 0)));
    if (ready < 0 && errno != EINTR) throw_errno("poll");
    if (ready <= 0) continue;
    for (const pollfd& p : fds) {
      if (!(p.revents & (POLLIN | POLLHUP | POLLERR))) continue;
      Fd* owner = p.fd == out_fd.get()        ? &out_fd
                  : p.fd == err_fd.get()      ? &err_fd
                  : p.fd == status_read.get() ? &status_read
                                              : nullptr;
      if (!owner) continue;  // child_fd: handled by waitid at the top of the loop
      ssize_t n = read(p.fd, buf.data(), buf.size());
      if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
      if (n <= 0) {
        owner->reset();
        continue;
      }
      const auto len = static_cast<std::size_t>(n);
      if (owner == &out_fd) {
        cap_out.add(buf.data(), len);
      } else if (owner == &err_fd) {
        cap_err.add(buf.data(), len);
      } else if (status_text.size() < 65536) {
        status_text.append(buf.data(), len);
        if (init_pid <= 0) {
          long found = json_number(status_text, "child-pid");
          if (found > 0) {
            init_pid = static_cast<pid_t>(found);
            init_fd.reset(open_pidfd(init_pid));
            if (killed) kill_process(init_pid, init_fd);
          }
        }
      }
    }
  }
  if (plan.kill_uid) kill_all_of_uid(plan.uid);
  if (!child_done) {  // streams still held open by escaped processes past the grace period
    kill(-pid, SIGKILL);
    while (waitpid(pid, &wait_status, 0) < 0 && errno == EINTR) {
    }
  }
  wait_for_sandbox_end(init_fd);

  result.exit_status = status_code(wait_status);
  if (plan.status_fd >= 0) {
    long code = json_number(status_text, "exit-code");
    if (code >= 0) {
      result.exit_status = static_cast<int>(code);
    } else if (!result.timed_out) {
      result.error = "the sandbox could not start the program (bwrap exited with status " +
                     std::to_string(result.exit_status) + "; see stderr)";
    }
  }
  cap_out.finish();
  cap_err.finish();
  result.stdout_text = std::move(cap_out.text);
  result.stderr_text = std::move(cap_err.text);
  result.stdout_cut = cap_out.cut;
  result.stderr_cut = cap_err.cut;
  result.seconds = elapsed();
  return result;
}

// Number of tasks (threads included: RLIMIT_NPROC counts them) whose real uid is `uid`.
long count_tasks_of(uid_t uid) {
  long total = 0;
  std::error_code ec;
  for (fs::directory_iterator it("/proc", ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    Fd fd(open((it->path() / "status").c_str(), O_RDONLY | O_CLOEXEC));
    char buf[4096];
    ssize_t n = fd ? read(fd.get(), buf, sizeof buf - 1) : -1;
    if (n <= 0) continue;  // the process just exited
    buf[n] = '\0';
    const char* uid_line = std::strstr(buf, "\nUid:");
    const char* threads = std::strstr(buf, "\nThreads:");
    if (uid_line && threads && std::strtoul(uid_line + 5, nullptr, 10) == uid) {
      total += std::strtol(threads + 9, nullptr, 10);
    }
  }
  return total;
}

rlim_t to_rlim(double v) {
  return v <= 0 ? 0 : static_cast<rlim_t>(v);
}

// Shared by both modes: validation, limits, environment, descriptors.
Plan common_plan(const std::vector<std::string>& argv, const SandboxSpec& spec, bool switch_uid) {
  if (argv.empty()) throw std::invalid_argument("sandbox: argv is empty");
  if (argv[0].empty() || argv[0][0] != '/') {
    throw std::invalid_argument("sandbox: argv[0] must be an absolute path, got '" + argv[0] + "'");
  }
  for (int fd : spec.pass_fds) {
    if (fd < 3 || fcntl(fd, F_GETFD) < 0) {
      throw std::invalid_argument("sandbox: pass_fds entry " + std::to_string(fd) +
                                  " is not an open descriptor >= 3");
    }
  }
  if (!spec.rw_dir.empty() && !fs::is_directory(spec.rw_dir)) {
    throw std::invalid_argument("sandbox: rw_dir " + spec.rw_dir.string() + " is not a folder");
  }
  Plan plan;
  plan.switch_uid = switch_uid;
  plan.uid = spec.sandbox_uid;
  plan.keep_fds = spec.pass_fds;
  plan.wall_seconds = spec.wall_seconds;
  plan.wall_extra = spec.wall_extra;
  plan.output_cap = spec.output_cap;
  const std::string home = spec.rw_dir.empty() ? "/tmp" : fs::absolute(spec.rw_dir).string();
  plan.env = {std::string("PATH=") + kSandboxPath, "HOME=" + home, "TMPDIR=/tmp", "LANG=C.UTF-8"};
  if (const char* devices = std::getenv("CUDA_VISIBLE_DEVICES")) {
    plan.env.push_back(std::string("CUDA_VISIBLE_DEVICES=") + devices);
  }
  plan.env.insert(plan.env.end(), spec.extra_env.begin(), spec.extra_env.end());

  // Limits. Without root, hard limits cannot be raised: clamp to the current ones.
  const bool root = geteuid() == 0;
  auto add = [&](Resource resource, rlim_t soft, rlim_t hard) {
    rlimit current{RLIM_INFINITY, RLIM_INFINITY};
    getrlimit(resource, &current);
    if (!root && current.rlim_max != RLIM_INFINITY) {
      hard = std::min(hard, current.rlim_max);
      soft = std::min(soft, hard);
    }
    plan.limits.push_back({resource, rlimit{soft, hard}});
  };
  const rlim_t cpu = std::max<rlim_t>(1, to_rlim(std::ceil(spec.cpu_seconds)));
  add(RLIMIT_CPU, cpu, cpu + 1);
  add(RLIMIT_CORE, 0, 0);
  if (spec.memory_bytes > 0) add(RLIMIT_AS, spec.memory_bytes, spec.memory_bytes);
  if (spec.file_bytes > 0) add(RLIMIT_FSIZE, spec.file_bytes, spec.file_bytes);
  add(RLIMIT_NOFILE, to_rlim(spec.open_files), to_rlim(spec.open_files));
  rlim_t nproc = to_rlim(spec.processes);
  if (!switch_uid && !root) nproc += static_cast<rlim_t>(count_tasks_of(getuid()));
  add(RLIMIT_NPROC, nproc, nproc);

  plan.args.assign(argv.begin(), argv.end());
  plan.exe = argv[0];
  return plan;
}

std::string find_bwrap() {
  const char* path_env = std::getenv("PATH");
  std::string path = path_env && *path_env ? path_env : "/usr/bin:/bin";
  std::size_t begin = 0;
  while (begin <= path.size()) {
    std::size_t end = path.find(':', begin);
    if (end == std::string::npos) end = path.size();
    std::string dir = path.substr(begin, end - begin);
    if (!dir.empty() && dir[0] == '/') {
      std::string candidate = dir + "/bwrap";
      struct stat st;
      if (stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
          access(candidate.c_str(), X_OK) == 0) {
        return candidate;
      }
    }
    begin = end + 1;
  }
  return {};
}

std::size_t depth(const fs::path& p) {
  return static_cast<std::size_t>(std::distance(p.begin(), p.end()));
}

std::atomic<Isolation> g_isolation{Isolation::kBwrap};

// Under uid isolation a run kills every process of its uid when it starts and when it ends, so
// two runs of one uid must not overlap: the compile steps share one uid (they write one cache),
// and graders on one host (a node's array tasks) count their run uids from the same first one.
// Seen in a container grading with --jobs 2: each compile step killed the other's compiler
// (exit status 137), and every kernel exercise but one failed to build. A run takes its uid's
// lock first: a mutex for this grader's threads, and a flock on a file of a folder only root
// may write (/run/banks-course-uids), which other graders take too; where that folder cannot be
// made, the mutex alone.
class UidLock {
 public:
  explicit UidLock(unsigned uid) : local_(mutex_of(uid)) {
    constexpr const char* kDir = "/run/banks-course-uids";
    mkdir(kDir, 0700);
    struct stat st {};
    if (lstat(kDir, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == 0 &&
        (st.st_mode & (S_IWGRP | S_IWOTH)) == 0) {
      const std::string file = std::string(kDir) + "/" + std::to_string(uid);
      fd_ = open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
      while (fd_ >= 0 && flock(fd_, LOCK_EX) != 0 && errno == EINTR) {
      }
    }
  }
  ~UidLock() {
    if (fd_ >= 0) close(fd_);
  }
  UidLock(const UidLock&) = delete;
  UidLock& operator=(const UidLock&) = delete;

 private:
  static std::mutex& mutex_of(unsigned uid) {
    static std::mutex guard;
    static std::map<unsigned, std::unique_ptr<std::mutex>> mutexes;
    const std::lock_guard<std::mutex> hold(guard);
    auto& m = mutexes[uid];
    if (!m) m = std::make_unique<std::mutex>();
    return *m;
  }
  std::lock_guard<std::mutex> local_;
  int fd_ = -1;
};

SandboxResult run_uid_isolated(const std::vector<std::string>& argv, const SandboxSpec& spec) {
  if (geteuid() != 0) {
    SandboxResult r;
    r.exit_status = 127;
    r.error = "uid isolation needs the grader to run as root";
    return r;
  }
  for (const auto& p : spec.ro_paths) {
    if (!fs::exists(p))
      throw std::invalid_argument("sandbox: ro_path " + p.string() + " is missing");
  }
  Plan plan = common_plan(argv, spec, true);
  plan.cwd = spec.rw_dir.empty() ? "/tmp" : fs::absolute(spec.rw_dir).string();
  // The program sees the host's file system as its uid: what it needs (and nothing else of a
  // folder closed to others) is made reachable.
  std::vector<fs::path> needed = spec.ro_paths;
  if (!spec.rw_dir.empty()) needed.push_back(spec.rw_dir);
  if (fs::exists(argv[0])) needed.push_back(argv[0]);
  plan.reach = internal::plan_reach(needed);
  const UidLock own_uid(spec.sandbox_uid);
  if (!spec.rw_dir.empty() && chown(plan.cwd.c_str(), spec.sandbox_uid, spec.sandbox_uid) != 0) {
    throw_errno(("chown " + plan.cwd).c_str());
  }
  plan.kill_uid = true;
  kill_all_of_uid(spec.sandbox_uid);  // nothing of an earlier run of this uid may wait for us
  return run_plan(plan, Fd(), Fd());
}

}  // namespace

void set_isolation(Isolation isolation) {
  g_isolation = isolation;
}

Isolation isolation() {
  return g_isolation;
}

SandboxResult run_sandboxed(const std::vector<std::string>& argv, const SandboxSpec& spec) {
  if (g_isolation == Isolation::kUid) return run_uid_isolated(argv, spec);
  const bool root = geteuid() == 0;
  const bool admin = root && spec.profiler;
  Plan plan = common_plan(argv, spec, root && !admin);
  std::vector<std::pair<fs::path, bool>> binds;  // path, writable
  for (const auto& p : spec.ro_paths) {
    if (!fs::exists(p))
      throw std::invalid_argument("sandbox: ro_path " + p.string() + " is missing");
    binds.push_back({fs::absolute(p).lexically_normal(), false});
  }
  fs::path rw;
  if (!spec.rw_dir.empty()) {
    rw = fs::absolute(spec.rw_dir).lexically_normal();
    binds.push_back({rw, true});
  }

  const std::string bwrap = find_bwrap();
  if (bwrap.empty()) {
    SandboxResult r;
    r.exit_status = 127;
    r.error = std::string("bubblewrap (bwrap) is not installed: ") + kInstallHint;
    return r;
  }
  // The profiler keeps uid 0 but not CAP_DAC_OVERRIDE: its folder must be root's again.
  const unsigned owner = admin ? 0 : spec.sandbox_uid;
  if (root && !rw.empty() && chown(rw.c_str(), owner, owner) != 0) {
    throw_errno(("chown " + rw.string()).c_str());
  }

  Pipe status = make_pipe();
  const std::string id = std::to_string(kInsideId);
  std::vector<std::string> a = {bwrap, "--unshare-all", "--die-with-parent", "--new-session"};
  if (admin) {
    a.insert(a.end(), {"--cap-drop", "ALL", "--cap-add", "CAP_SYS_ADMIN"});
  } else {
    a.insert(a.end(),
             {"--unshare-user", "--disable-userns", "--uid", id, "--gid", id, "--cap-drop", "ALL"});
  }
  a.insert(a.end(), {"--proc", "/proc", "--dev", "/dev"});
  for (const auto& node : spec.dev_nodes) {
    std::error_code ec;
    if (fs::exists(node, ec)) a.insert(a.end(), {"--dev-bind", node, node});
  }
  a.insert(a.end(), {"--remount-ro", "/dev"});
  for (const char* tmp : {"/dev/shm", "/tmp"}) {
    if (spec.file_bytes > 0) a.insert(a.end(), {"--size", std::to_string(spec.file_bytes)});
    a.insert(a.end(), {"--tmpfs", tmp});
  }
  a.insert(a.end(), {"--ro-bind", "/usr", "/usr"});
  for (const char* dir : {"/bin", "/sbin", "/lib", "/lib64", "/lib32", "/libx32"}) {
    struct stat st;
    if (lstat(dir, &st) != 0) continue;
    if (S_ISLNK(st.st_mode)) {
      std::error_code ec;
      fs::path target = fs::read_symlink(dir, ec);
      if (!ec) a.insert(a.end(), {"--symlink", target.string(), dir});
    } else if (S_ISDIR(st.st_mode)) {
      a.insert(a.end(), {"--ro-bind", dir, dir});
    }
  }
  for (const char* file : {"/etc/ld.so.cache", "/etc/alternatives"}) {
    a.insert(a.end(), {"--ro-bind-try", file, file});
  }
  std::stable_sort(binds.begin(), binds.end(),
                   [](const auto& x, const auto& y) { return depth(x.first) < depth(y.first); });
  for (const auto& [path, writable] : binds) {
    // The source by its canonical path: a link on the way may lie in a folder that only the
    // reach below makes passable, where the link itself is not.
    a.insert(a.end(),
             {writable ? "--bind" : "--ro-bind", fs::canonical(path).string(), path.string()});
  }
  a.insert(a.end(), {"--chdir", rw.empty() ? std::string("/tmp") : rw.string()});
  a.insert(a.end(), {"--json-status-fd", std::to_string(status.write.get()), "--"});
  a.insert(a.end(), argv.begin(), argv.end());

  plan.exe = bwrap;
  plan.args = std::move(a);
  plan.cwd = "/";
  if (plan.switch_uid) {  // bwrap looks its sources up as the sandbox's uid
    std::vector<fs::path> needed = {bwrap};
    for (const auto& bind : binds) needed.push_back(bind.first);
    plan.reach = internal::plan_reach(needed);
  }
  plan.status_fd = status.write.get();
  return run_plan(plan, std::move(status.read), std::move(status.write));
}

SandboxResult run_unsandboxed(const std::vector<std::string>& argv, const SandboxSpec& spec) {
  Plan plan = common_plan(argv, spec, false);
  plan.cwd = spec.rw_dir.empty() ? "/tmp" : fs::absolute(spec.rw_dir).string();
  return run_plan(plan, Fd(), Fd());
}

bool sandbox_available(std::string* why) {
  auto fail = [&](std::string message) {
    if (why) *why = std::move(message);
    return false;
  };
  if (g_isolation == Isolation::kUid) {
    if (geteuid() == 0) return true;
    return fail("uid isolation (--isolation uid) needs the grader to run as root");
  }
  const std::string bwrap = find_bwrap();
  if (bwrap.empty()) {
    return fail(std::string("bubblewrap (bwrap) is not installed: ") + kInstallHint);
  }
  SandboxSpec trial;
  trial.wall_seconds = 20;
  SandboxResult r;
  try {
    r = run_sandboxed({"/bin/true"}, trial);
  } catch (const std::exception& e) {
    return fail(std::string("a trial sandbox could not be set up: ") + e.what());
  }
  if (r.error.empty() && !r.timed_out && r.exit_status == 0) {
    if (why) why->clear();
    return true;
  }
  std::string detail = r.stderr_text;
  while (!detail.empty() && (detail.back() == '\n' || detail.back() == ' ')) detail.pop_back();
  if (detail.size() > 500) detail.resize(500);
  return fail("bubblewrap is installed (" + bwrap + ") but a trial sandbox running /bin/true " +
              (r.timed_out ? std::string("timed out")
                           : "failed (status " + std::to_string(r.exit_status) + ")") +
              (detail.empty() ? "" : ": " + detail) +
              (r.error.empty() ? "" : " [" + r.error + "]") +
              ". Unprivileged user namespaces may be disabled: check `sysctl "
              "user.max_user_namespaces` (must be > 0), `kernel.unprivileged_userns_clone=1` "
              "(Debian), `kernel.apparmor_restrict_unprivileged_userns=0` (Ubuntu 24.04+), or "
              "the container's seccomp profile; or pass --no-sandbox to grade only your own, "
              "trusted code");
}

}  // namespace grader
