// test_sandbox.cpp - tests of grader/sandbox.hpp: isolation (network, file system, pid namespace,
// session, uid, capabilities, environment), rlimits, output caps, descriptor passing, timeouts,
// error messages, and the overhead of bwrap (printed, not asserted). Each isolation check has a
// control (the same command without the sandbox, or the probe shown to work) so that it can fail.
// Over 500 lines on purpose: one program for every isolation property, sharing its helpers.
// Needs bubblewrap: without it the sandboxed tests are skipped with a warning. Run as root for
// the exact process-limit check. Run: build/bin/test_sandbox (all cases are tagged [sandbox]).
#include "course_catch.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pwd.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "../grader/src/sandbox_reach.hpp"
#include "grader/sandbox.hpp"

namespace fs = std::filesystem;
using grader::run_sandboxed;
using grader::run_unsandboxed;
using grader::SandboxResult;
using grader::SandboxSpec;

namespace {

// A fresh folder under /tmp, mode 0755 (readable by the sandbox uid), removed at the end.
class TempDir {
 public:
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "sbx-test-XXXXXX").string();
    if (!mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
    path_ = tmpl;
    fs::permissions(path_, fs::perms(0755));
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// Restores an environment variable at the end of a scope.
class EnvRestore {
 public:
  explicit EnvRestore(const char* name) : name_(name) {
    const char* v = std::getenv(name);
    had_ = v != nullptr;
    if (had_) value_ = v;
  }
  ~EnvRestore() {
    if (had_) {
      setenv(name_.c_str(), value_.c_str(), 1);
    } else {
      unsetenv(name_.c_str());
    }
  }

 private:
  std::string name_, value_;
  bool had_ = false;
};

// The whole file, or "" (POSIX read: a /proc file of a process that just exited fails to read,
// which std::istreambuf_iterator would turn into an exception).
std::string read_text(const fs::path& p) {
  std::string text;
  int fd = open(p.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return text;
  char buf[4096];
  ssize_t n;
  while ((n = read(fd, buf, sizeof buf)) > 0) text.append(buf, static_cast<std::size_t>(n));
  close(fd);
  return text;
}

void write_text(const fs::path& p, const std::string& text) {
  std::ofstream(p, std::ios::binary) << text;
}

bool bwrap_on_path() {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    if (!dir.empty() && access((dir + "/bwrap").c_str(), X_OK) == 0) return true;
  }
  return false;
}

// True when sandboxed tests can run. Without bwrap: a warning, and the caller skips. With bwrap,
// the sandbox must work.
bool sandbox_ready() {
  if (!bwrap_on_path()) {
    WARN("bubblewrap is not installed: sandboxed tests skipped (apt-get install bubblewrap)");
    return false;
  }
  std::string why;
  bool ok = grader::sandbox_available(&why);
  INFO(why);
  REQUIRE(ok);
  return true;
}

// A `sleep` command line that nothing else on the host uses: "sleep 1000 0.<unique>".
std::vector<std::string> marked_sleep() {
  static int counter = 0;
  return {"sleep", "1000", "0." + std::to_string(getpid()) + std::to_string(++counter) + "1"};
}

std::string join_sh(const std::vector<std::string>& words) {
  std::string s;
  for (const auto& w : words) s += (s.empty() ? "" : " ") + w;
  return s;
}

// Host processes whose command line is exactly `words`.
int count_processes(const std::vector<std::string>& words) {
  std::string want;
  for (const auto& w : words) want += w + '\0';
  int found = 0;
  for (const auto& entry : fs::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    if (read_text(entry.path() / "cmdline") == want) ++found;
  }
  return found;
}

// Over the host's processes whose real uid is `uid`: `threads` of those (tasks, threads
// included), or the processes that are not zombies.
int scan_uid(unsigned uid, bool threads) {
  int total = 0;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::istringstream status(read_text(entry.path() / "status"));
    std::string line;
    bool mine = false, zombie = false;
    while (std::getline(status, line)) {
      if (line.rfind("State:", 0) == 0) zombie = line.find('Z') != std::string::npos;
      if (line.rfind("Uid:", 0) == 0) mine = std::stoul(line.substr(4)) == uid;
      if (mine && threads && line.rfind("Threads:", 0) == 0) total += std::stoi(line.substr(8));
    }
    if (mine && !threads && !zombie) ++total;
  }
  return total;
}

int count_tasks_of(unsigned uid) {
  return scan_uid(uid, true);
}

// Processes of `uid` that are not zombies, after up to 2 s for SIGKILLed ones to finish exiting:
// a killed task runs no more code of its own, but shows as live until the kernel has torn it down
// (seen on a loaded machine: one of three escaped sleepers a moment after the run).
int live_processes_of(unsigned uid) {
  int live = scan_uid(uid, false);
  for (int i = 0; i < 200 && live != 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    live = scan_uid(uid, false);
  }
  return live;
}

unsigned sandbox_host_uid(const SandboxSpec& spec) {
  return geteuid() == 0 ? spec.sandbox_uid : getuid();
}

SandboxSpec quick_spec() {
  SandboxSpec spec;
  spec.wall_seconds = 20;
  return spec;
}

using Runner = SandboxResult (*)(const std::vector<std::string>&, const SandboxSpec&);

}  // namespace

TEST_CASE("sandbox_available finds a working bubblewrap", "[sandbox]") {
  if (!bwrap_on_path()) {
    std::string why;
    CHECK_FALSE(grader::sandbox_available(&why));
    WARN(why);
    return;
  }
  std::string why = "unchanged";
  CHECK(grader::sandbox_available(&why));
  CHECK(why.empty());
}

TEST_CASE("sandbox_available explains a missing or broken bwrap", "[sandbox]") {
  EnvRestore restore("PATH");
  TempDir empty, fake;

  setenv("PATH", empty.path().c_str(), 1);
  std::string why;
  CHECK_FALSE(grader::sandbox_available(&why));
  CHECK_THAT(why, HasSubstr("bubblewrap (bwrap) is not installed") &&
                      HasSubstr("apt-get install bubblewrap") && HasSubstr("--no-sandbox"));
  SandboxResult r = run_sandboxed({"/bin/true"}, quick_spec());
  CHECK(r.exit_status == 127);
  CHECK_THAT(r.error, HasSubstr("apt-get install bubblewrap"));

  // A bwrap that fails its trial run, as when user namespaces are disabled.
  const fs::path script = fake.path() / "bwrap";
  write_text(script,
             "#!/bin/sh\necho 'bwrap: setting up uid map: Permission denied' >&2\nexit 1\n");
  fs::permissions(script, fs::perms(0755));
  setenv("PATH", fake.path().c_str(), 1);
  CHECK_FALSE(grader::sandbox_available(&why));
  CHECK_THAT(why, HasSubstr("trial sandbox") &&
                      HasSubstr("setting up uid map: Permission denied") &&
                      HasSubstr("user namespaces") && HasSubstr("--no-sandbox"));
}

TEST_CASE("the sandbox has no network", "[sandbox]") {
  if (!sandbox_ready()) return;
  int listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  REQUIRE(listener >= 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  REQUIRE(listen(listener, 8) == 0);
  socklen_t len = sizeof addr;
  REQUIRE(getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len) == 0);
  const std::string port = std::to_string(ntohs(addr.sin_port));
  const std::vector<std::string> argv = {
      "/bin/bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/" + port + " && echo connected"};

  // Control: the same command reaches the listener without the sandbox.
  SandboxResult plain = run_unsandboxed(argv, quick_spec());
  CHECK(plain.stdout_text == "connected\n");
  int accepted = accept(listener, nullptr, nullptr);
  CHECK(accepted >= 0);
  if (accepted >= 0) close(accepted);

  SandboxResult boxed = run_sandboxed(argv, quick_spec());
  INFO(boxed.stderr_text);
  CHECK(boxed.error.empty());
  CHECK(boxed.exit_status != 0);
  CHECK(boxed.stdout_text.empty());
  CHECK(accept(listener, nullptr, nullptr) < 0);  // nothing arrived
  close(listener);
}

TEST_CASE("the sandbox shows only listed host paths and only rw_dir is writable", "[sandbox]") {
  if (!sandbox_ready()) return;
  TempDir hidden, ro, parent;
  write_text(hidden.path() / "secret.txt", "secret\n");
  fs::permissions(ro.path(), fs::perms(0777));  // only the read-only bind can stop writes
  write_text(ro.path() / "data.txt", "ro-data");
  const fs::path rw = parent.path() / "it's, \"odd\"\nname";
  fs::create_directory(rw);
  fs::permissions(rw, fs::perms(0777));
  const std::string tmp_marker = "sbx-private-tmp-" + std::to_string(getpid());

  SandboxSpec spec = quick_spec();
  spec.ro_paths = {ro.path()};
  spec.rw_dir = rw;
  const std::string script =
      "test -e \"$1\" && echo 'hidden visible'\n"
      "cat \"$2\"; echo\n"
      "touch \"$3/new\" 2>/dev/null && echo 'ro writable'\n"
      "echo rw-ok > \"$4/out.txt\" && echo 'rw written'\n"
      "test -e /etc/passwd && echo 'passwd visible'\n"
      "echo mine > \"/tmp/$5\" && echo 'tmp ok'\n"
      "echo \"pwd=$(pwd)\"\n"
      "echo \"uid=$(id -u)\"\n"
      "grep -E 'CapEff|NoNewPrivs' /proc/self/status\n"
      "unshare -U true 2>/dev/null && echo 'userns allowed'\n"
      "read -r -a stat < /proc/$$/stat; [ \"${stat[5]}\" = 1 ] && echo 'own session'\n";
  const std::vector<std::string> argv = {"/bin/bash",
                                         "-c",
                                         script,
                                         "sh",
                                         (hidden.path() / "secret.txt").string(),
                                         (ro.path() / "data.txt").string(),
                                         ro.path().string(),
                                         rw.string(),
                                         tmp_marker};

  SECTION("control: without the sandbox everything is visible and writable") {
    SandboxResult r = run_unsandboxed(argv, spec);
    CHECK_THAT(r.stdout_text, HasSubstr("hidden visible") && HasSubstr("ro writable") &&
                                  HasSubstr("passwd visible"));
    fs::remove(fs::path("/tmp") / tmp_marker);
  }
  SECTION("sandboxed") {
    SandboxResult r = run_sandboxed(argv, spec);
    INFO(r.stdout_text << r.stderr_text);
    CHECK(r.error.empty());
    CHECK(r.exit_status == 0);
    CHECK_THAT(r.stdout_text, !HasSubstr("hidden visible"));
    CHECK_THAT(r.stdout_text, HasSubstr("ro-data"));
    CHECK_THAT(r.stdout_text, !HasSubstr("ro writable"));
    CHECK_THAT(r.stdout_text, HasSubstr("rw written"));
    CHECK_THAT(r.stdout_text, !HasSubstr("passwd visible"));
    CHECK_THAT(r.stdout_text, HasSubstr("tmp ok"));
    CHECK_THAT(r.stdout_text, HasSubstr("pwd=" + rw.string() + "\n"));
    CHECK_THAT(r.stdout_text, HasSubstr("uid=65534"));
    CHECK_THAT(r.stdout_text, HasSubstr("CapEff:\t0000000000000000"));
    CHECK_THAT(r.stdout_text, HasSubstr("NoNewPrivs:\t1"));
    CHECK_THAT(r.stdout_text, !HasSubstr("userns allowed"));  // --disable-userns
    CHECK_THAT(r.stdout_text, HasSubstr("own session"));      // --new-session: init's, not ours
    CHECK(read_text(rw / "out.txt") == "rw-ok\n");
    CHECK_FALSE(fs::exists(ro.path() / "new"));
    CHECK_FALSE(fs::exists(fs::path("/tmp") / tmp_marker));  // /tmp inside is private
  }
}

TEST_CASE("the sandbox /dev is minimal and read-only with the listed device nodes", "[sandbox]") {
  if (!sandbox_ready()) return;
  const std::string node = fs::exists("/dev/fuse") ? "/dev/fuse" : "/dev/loop-control";
  if (!fs::exists(node)) {
    WARN("no /dev/fuse or /dev/loop-control on this host: device test skipped");
    return;
  }
  SandboxSpec spec = quick_spec();
  spec.file_bytes = 1 << 20;
  const std::vector<std::string> argv = {
      "/bin/sh", "-c",
      "test -e " + node +
          " && echo node; test -e /dev/kmsg && echo kmsg; "
          "touch /dev/new 2>/dev/null && echo 'dev writable'; "
          "head -c 2097152 /dev/zero > /dev/shm/big 2>/dev/null || echo 'shm full'"};
  SandboxResult without = run_sandboxed(argv, spec);
  CHECK(without.stdout_text == "shm full\n");
  spec.dev_nodes = {node, "/dev/no-such-device"};
  SandboxResult with = run_sandboxed(argv, spec);
  INFO(with.stderr_text);
  CHECK(with.stdout_text == "node\nshm full\n");
}

TEST_CASE("arguments and paths are data and never shell", "[sandbox]") {
  const bool boxed = sandbox_ready();
  TempDir parent;
  const fs::path rw = parent.path() / "it's, \"odd\"\nname";
  fs::create_directory(rw);
  fs::permissions(rw, fs::perms(0777));
  const fs::path pwned = parent.path() / "pwned";
  const std::vector<std::string> odd = {
      "it's, \"odd\"", "two\nlines", "$(touch " + pwned.string() + ")", "; echo injected", "*", ""};
  std::vector<std::string> argv = {"/usr/bin/printf", "%s|"};
  argv.insert(argv.end(), odd.begin(), odd.end());
  std::string expected;
  for (const auto& a : odd) expected += a + "|";
  SandboxSpec spec = quick_spec();
  spec.rw_dir = rw;

  for (Runner run : {&run_unsandboxed, &run_sandboxed}) {
    if (run == &run_sandboxed && !boxed) continue;
    SandboxResult r = run(argv, spec);
    CHECK(r.stdout_text == expected);
    CHECK_FALSE(fs::exists(pwned));
    SandboxResult pwd = run({"/bin/pwd"}, spec);
    CHECK(pwd.stdout_text == rw.string() + "\n");
  }
}

TEST_CASE("the program gets a minimal environment and not the grader's", "[sandbox]") {
  const bool boxed = sandbox_ready();
  EnvRestore restore("GRADER_SECRET_TOKEN");
  setenv("GRADER_SECRET_TOKEN", "hunter2", 1);
  TempDir rw;
  SandboxSpec spec = quick_spec();
  spec.rw_dir = rw.path();
  for (Runner run : {&run_unsandboxed, &run_sandboxed}) {
    if (run == &run_sandboxed && !boxed) continue;
    SandboxResult r = run({"/usr/bin/env"}, spec);
    CHECK_THAT(r.stdout_text, !HasSubstr("hunter2"));
    CHECK_THAT(r.stdout_text, HasSubstr("PATH=/usr/local/bin:/usr/bin:/bin\n") &&
                                  HasSubstr("HOME=" + rw.path().string() + "\n"));
  }
}

TEST_CASE("nothing started in the sandbox outlives the run", "[sandbox]") {
  const bool boxed = sandbox_ready();
  // Control: the process scan finds a marked sleep started on the host.
  const auto control = marked_sleep();
  std::vector<char*> cargv;
  for (const auto& w : control) cargv.push_back(const_cast<char*>(w.c_str()));
  cargv.push_back(nullptr);
  pid_t pid = 0;
  REQUIRE(posix_spawn(&pid, "/bin/sleep", nullptr, nullptr, cargv.data(), environ) == 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  CHECK(count_processes(control) == 1);
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  CHECK(count_processes(control) == 0);

  for (Runner run : {&run_sandboxed, &run_unsandboxed}) {
    if (run == &run_sandboxed && !boxed) continue;
    const auto sleeper = marked_sleep();
    SandboxResult r = run({"/bin/sh", "-c", join_sh(sleeper) + " & echo started"}, quick_spec());
    INFO(r.stderr_text);
    CHECK(r.stdout_text == "started\n");
    CHECK(r.exit_status == 0);
    CHECK_FALSE(r.timed_out);
    CHECK(r.seconds < 5);
    CHECK(count_processes(sleeper) == 0);
  }
}

TEST_CASE("the sandbox dies with the grader", "[sandbox]") {
  if (!sandbox_ready()) return;
  const auto sleeper = marked_sleep();
  const pid_t grader = fork();  // a stand-in grader (this process is single-threaded here)
  REQUIRE(grader >= 0);
  if (grader == 0) {
    SandboxSpec spec = quick_spec();
    run_sandboxed({"/bin/sh", "-c", join_sh(sleeper) + " & " + join_sh(sleeper)}, spec);
    _exit(0);
  }
  auto wait_for = [&](int want) {
    for (int i = 0; i < 300 && count_processes(sleeper) != want; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return count_processes(sleeper);
  };
  CHECK(wait_for(2) == 2);
  kill(grader, SIGKILL);
  waitpid(grader, nullptr, 0);
  CHECK(wait_for(0) == 0);
}

TEST_CASE("the wall-clock timeout kills everything", "[sandbox]") {
  const bool boxed = sandbox_ready();
  for (Runner run : {&run_sandboxed, &run_unsandboxed}) {
    if (run == &run_sandboxed && !boxed) continue;
    const auto sleeper = marked_sleep();
    SandboxSpec spec = quick_spec();
    spec.wall_seconds = 1;
    SandboxResult r = run({"/bin/sh", "-c", join_sh(sleeper) + " & " + join_sh(sleeper)}, spec);
    CHECK(r.timed_out);
    CHECK(r.exit_status != 0);
    CHECK(r.seconds >= 1);
    CHECK(r.seconds < 2.5);
    CHECK(count_processes(sleeper) == 0);
  }
}

TEST_CASE("rlimit: CPU seconds", "[sandbox]") {
  const bool boxed = sandbox_ready();
  SandboxSpec spec = quick_spec();
  spec.cpu_seconds = 1;
  for (Runner run : {&run_sandboxed, &run_unsandboxed}) {
    if (run == &run_sandboxed && !boxed) continue;
    SandboxResult r = run({"/bin/sh", "-c", "while :; do :; done"}, spec);
    CHECK_FALSE(r.timed_out);
    CHECK((r.exit_status == 128 + SIGXCPU || r.exit_status == 128 + SIGKILL));
    CHECK(r.seconds < 5);
  }
}

TEST_CASE("rlimit: file size", "[sandbox]") {
  if (!sandbox_ready()) return;
  TempDir rw;
  fs::permissions(rw.path(), fs::perms(0777));
  SandboxSpec spec = quick_spec();
  spec.rw_dir = rw.path();
  const std::vector<std::string> argv = {"/bin/sh", "-c", "head -c 2097152 /dev/zero > big"};
  spec.file_bytes = 4 << 20;
  SandboxResult control = run_sandboxed(argv, spec);
  CHECK(control.exit_status == 0);
  CHECK(fs::file_size(rw.path() / "big") == 2u << 20);
  spec.file_bytes = 1 << 20;
  SandboxResult r = run_sandboxed(argv, spec);
  CHECK(r.exit_status != 0);
  CHECK(fs::file_size(rw.path() / "big") <= 1u << 20);
}

TEST_CASE("rlimit: memory (address space)", "[sandbox]") {
  if (!sandbox_ready()) return;
  SandboxSpec spec = quick_spec();
  const std::vector<std::string> argv = {"/bin/dd", "if=/dev/zero", "of=/dev/null", "bs=100M",
                                         "count=1"};
  spec.memory_bytes = 0;
  SandboxResult control = run_sandboxed(argv, spec);
  CHECK(control.exit_status == 0);
  spec.memory_bytes = 64 << 20;
  SandboxResult r = run_sandboxed(argv, spec);
  CHECK(r.exit_status != 0);
  CHECK_THAT(r.stderr_text, HasSubstr("memory exhausted"));
}

TEST_CASE("rlimit: open files", "[sandbox]") {
  if (!sandbox_ready()) return;
  SandboxSpec spec = quick_spec();
  const std::vector<std::string> argv = {
      "/bin/bash", "-c",
      "ulimit -n; for i in $(seq 3 40); do eval \"exec $i>/dev/null\" 2>/dev/null || "
      "{ echo \"failed at $i\"; exit 3; }; done; echo all"};
  SandboxResult control = run_sandboxed(argv, spec);
  CHECK(control.stdout_text == "256\nall\n");
  spec.open_files = 16;
  SandboxResult r = run_sandboxed(argv, spec);
  // bash opens the file at the lowest free number before moving it, so it stops at 15 or 16.
  CHECK_THAT(r.stdout_text, MatchesRegex("16\nfailed at 1[56]\n"));
  CHECK(r.exit_status == 3);
}

TEST_CASE("rlimit: processes and a contained fork bomb", "[sandbox]") {
  if (!sandbox_ready()) return;
  SandboxSpec spec = quick_spec();
  spec.processes = 16;
  // A uid of its own (65533: reserved, unused on Debian) so that other sandboxes running at the
  // same time (ctest -j) neither eat into the budget nor disturb the count.
  if (!getpwuid(65533)) spec.sandbox_uid = 65533;
  const unsigned uid = sandbox_host_uid(spec);

  // Deterministic: how many background sleeps can start (2 slots go to bwrap, 1 to sh).
  const std::vector<std::string> sleeps = {
      "/bin/sh", "-c", "for i in $(seq 1 30); do sleep 2 & echo $i; done 2>/dev/null"};
  auto started = [](const SandboxResult& r) {
    return std::count(r.stdout_text.begin(), r.stdout_text.end(), '\n');
  };
  SandboxResult limited = run_sandboxed(sleeps, spec);
  CHECK(started(limited) <= 16 - 3);
  CHECK(started(limited) >= 1);
  spec.processes = 64;
  CHECK(started(run_sandboxed(sleeps, spec)) == 30);

  // A depth-bounded fork bomb (unlimited: ~1500 processes). bash retries a failed fork for
  // seconds, so the bomb keeps pushing at the limit until the wall-clock timeout kills it.
  spec.processes = 16;
  spec.wall_seconds = 3;
  const int baseline = count_tasks_of(uid);  // non-root: this test process is counted too
  std::atomic<bool> done{false};
  std::atomic<int> peak{0};
  std::thread sampler([&] {
    while (!done) {
      peak = std::max(peak.load(), count_tasks_of(uid) - baseline);
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  });
  SandboxResult bomb = run_sandboxed(
      {"/bin/bash", "-c",
       "b() { if (( $1 < 9 )); then b $(($1+1)) & b $(($1+1)); wait; else sleep 2; fi; }; b 0"},
      spec);
  done = true;
  sampler.join();
  INFO("peak tasks of uid " << uid << ": " << peak << " above a baseline of " << baseline
                            << "; stderr: " << bomb.stderr_text.substr(0, 300));
  CHECK(bomb.timed_out);
  CHECK(bomb.seconds < spec.wall_seconds + 2);
  CHECK(peak >= 10);  // the sampler saw the bomb at work
  if (geteuid() == 0) CHECK(peak <= 16);
  CHECK(count_tasks_of(uid) - baseline <= 0);  // and it is all gone
}

TEST_CASE("stdout and stderr are captured as bytes and capped", "[sandbox]") {
  const bool boxed = sandbox_ready();
  const std::string note = "\n[... output cut at 1 MiB by the grader]\n";
  SandboxSpec spec = quick_spec();
  const std::vector<std::string> argv = {
      "/bin/sh", "-c",
      "printf '\\377\\376\\000x'; head -c 52428800 /dev/zero; head -c 3145728 /dev/zero >&2"};
  for (Runner run : {&run_sandboxed, &run_unsandboxed}) {
    if (run == &run_sandboxed && !boxed) continue;
    SandboxResult r = run(argv, spec);
    CHECK(r.exit_status == 0);
    CHECK_FALSE(r.timed_out);
    CHECK(r.stdout_cut);
    CHECK(r.stderr_cut);
    CHECK(r.stdout_text.size() == (1u << 20) + note.size());
    CHECK(r.stdout_text.compare(0, 4, std::string("\xff\xfe\0x", 4)) == 0);
    CHECK(r.stdout_text.substr(1u << 20) == note);
    CHECK(r.stderr_text.size() == (1u << 20) + note.size());
    CHECK(r.seconds < 15);

    SandboxSpec small = spec;
    small.output_cap = 1024;
    SandboxResult s = run({"/bin/sh", "-c", "printf 'ok\\377'; printf 'e' >&2"}, small);
    CHECK(s.stdout_text == "ok\xff");
    CHECK(s.stderr_text == "e");
    CHECK_FALSE(s.stdout_cut);
    SandboxResult t = run({"/bin/sh", "-c", "head -c 5000 /dev/zero"}, small);
    CHECK(t.stdout_text == std::string(1024, '\0') + "\n[... output cut at 1 KiB by the grader]\n");
  }
}

TEST_CASE("pass_fds survive at the same numbers and other descriptors are closed", "[sandbox]") {
  const bool boxed = sandbox_ready();
  for (Runner run : {&run_sandboxed, &run_unsandboxed}) {
    if (run == &run_sandboxed && !boxed) continue;
    int report[2], other[2];
    REQUIRE(pipe2(report, O_CLOEXEC) == 0);
    REQUIRE(pipe(other) == 0);  // inheritable on purpose: the sandbox must still close it
    SandboxSpec spec = quick_spec();
    spec.pass_fds = {report[1]};
    const std::string n = std::to_string(report[1]), m = std::to_string(other[1]);
    SandboxResult r = run({"/bin/bash", "-c",
                           "echo hello >&" + n + "; test -e /proc/self/fd/" + m +
                               " && echo leaked; cd /proc/self/fd && echo *"},
                          spec);
    close(report[1]);
    char buf[64] = {};
    ssize_t got = read(report[0], buf, sizeof buf - 1);
    CHECK(std::string(buf, got > 0 ? static_cast<std::size_t>(got) : 0) == "hello\n");
    CHECK_THAT(r.stdout_text, !HasSubstr("leaked"));
    // Open inside: 0, 1, 2, the passed fd and at most one of bash's own (the glob's folder).
    std::istringstream words(r.stdout_text);
    std::set<std::string> fds{std::istream_iterator<std::string>(words), {}};
    CHECK(fds.count("0") + fds.count("1") + fds.count("2") + fds.count(n) == 4);
    CHECK(fds.size() <= 5);
    for (int fd : {report[0], other[0], other[1]}) close(fd);
  }
}

TEST_CASE("exit statuses and start failures and invalid arguments", "[sandbox]") {
  const bool boxed = sandbox_ready();
  for (Runner run : {&run_sandboxed, &run_unsandboxed}) {
    if (run == &run_sandboxed && !boxed) continue;
    SandboxSpec spec = quick_spec();
    SandboxResult seven = run({"/bin/sh", "-c", "exit 7"}, spec);
    CHECK(seven.exit_status == 7);
    CHECK(seven.error.empty());
    CHECK(run({"/bin/sh", "-c", "kill -SEGV $$"}, spec).exit_status == 128 + SIGSEGV);
    SandboxResult missing = run({"/no/such/program"}, spec);
    CHECK(missing.exit_status != 0);
    CHECK_FALSE(missing.error.empty());
    CHECK_THAT(missing.stderr_text + missing.error, HasSubstr("No such file"));

    CHECK_THROWS_AS(run({}, spec), std::invalid_argument);
    CHECK_THROWS_AS(run({"sh", "-c", "true"}, spec), std::invalid_argument);
    SandboxSpec bad_fd = spec;
    bad_fd.pass_fds = {1};
    CHECK_THROWS_AS(run({"/bin/true"}, bad_fd), std::invalid_argument);
    SandboxSpec bad_rw = spec;
    bad_rw.rw_dir = "/no/such/folder";
    CHECK_THROWS_AS(run({"/bin/true"}, bad_rw), std::invalid_argument);
  }
  if (boxed) {
    SandboxSpec bad_ro = quick_spec();
    bad_ro.ro_paths = {"/no/such/path"};
    CHECK_THROWS_AS(run_sandboxed({"/bin/true"}, bad_ro), std::invalid_argument);
  }
}

TEST_CASE("overhead of the sandbox (printed and not asserted)", "[sandbox]") {
  if (!sandbox_ready()) return;
  const int runs = 20;
  auto mean_ms = [&](Runner run) {
    double total = 0;
    for (int i = 0; i < runs; ++i) total += run({"/bin/true"}, quick_spec()).seconds;
    return 1000 * total / runs;
  };
  const double plain = mean_ms(&run_unsandboxed), boxed = mean_ms(&run_sandboxed);
  WARN("mean of " << runs << " runs of /bin/true: unsandboxed " << plain << " ms, sandboxed "
                  << boxed << " ms");
}

// Isolation::kUid, for containers that forbid user namespaces (course platforms): root only.
TEST_CASE("uid isolation: own uid, root's files out of reach, nothing outlives the run",
          "[sandbox][uid]") {
  if (geteuid() != 0) return;  // the uid switch needs root (CI and the platforms run as root)
  struct Restore {
    ~Restore() { grader::set_isolation(grader::Isolation::kBwrap); }
  } restore;
  grader::set_isolation(grader::Isolation::kUid);
  std::string why;
  CHECK(grader::sandbox_available(&why));
  const fs::path dir = fs::temp_directory_path() / ("uid-iso-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "work");
  fs::permissions(dir, fs::perms::owner_all | fs::perms::others_exec | fs::perms::others_read);
  const fs::path results = dir / "results.json";  // root's, 0644: readable, not writable
  const fs::path secret = dir / "secret.txt";     // root's, 0600: not even readable
  std::ofstream(results) << "{\"score\": 0}";
  std::ofstream(secret) << "the seed";
  fs::permissions(results, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read |
                               fs::perms::others_read);
  fs::permissions(secret, fs::perms::owner_read | fs::perms::owner_write);
  SandboxSpec spec = quick_spec();
  spec.rw_dir = dir / "work";
  spec.sandbox_uid = 61050;
  const auto sleeper = marked_sleep();
  const SandboxResult r = run_sandboxed(
      {"/bin/sh", "-c",
       "id -u; echo forged > " + results.string() + " 2>/dev/null || echo no-write; cat " +
           secret.string() + " 2>/dev/null || echo no-read; kill -9 " + std::to_string(getpid()) +
           " 2>/dev/null || echo no-kill; echo mine > mine.txt; (" + join_sh(sleeper) +
           " &) ; setsid -f " + join_sh(sleeper) + " </dev/null >/dev/null 2>&1; echo started"},
      spec);
  INFO(r.stderr_text << r.error);
  CHECK(r.stdout_text == "61050\nno-write\nno-read\nno-kill\nstarted\n");
  CHECK(read_text(results) == "{\"score\": 0}");
  CHECK(read_text(dir / "work" / "mine.txt") == "mine\n");  // rw_dir is its own
  CHECK(live_processes_of(spec.sandbox_uid) == 0);
  CHECK(count_processes(sleeper) == 0);  // escaped (setsid, double fork) and killed all the same
  // The wall-clock timeout holds too.
  spec.wall_seconds = 1;
  const SandboxResult t = run_sandboxed({"/bin/sh", "-c", join_sh(sleeper)}, spec);
  CHECK(t.timed_out);
  CHECK(live_processes_of(spec.sandbox_uid) == 0);
  CHECK(count_processes(sleeper) == 0);
  fs::remove_all(dir);
}

// Each run of uid isolation kills every process of its uid when it starts: two runs that share a
// uid (the compile steps all do) must wait for each other, not kill each other (a container
// grading with --jobs 2 lost every kernel exercise's build that way, exit status 137).
TEST_CASE("uid isolation: two runs of one uid at once both finish", "[sandbox][uid]") {
  if (geteuid() != 0) return;  // the uid switch needs root
  struct Restore {
    ~Restore() { grader::set_isolation(grader::Isolation::kBwrap); }
  } restore;
  grader::set_isolation(grader::Isolation::kUid);
  SandboxSpec spec = quick_spec();
  spec.sandbox_uid = 61052;
  std::array<SandboxResult, 2> r;
  std::array<std::thread, 2> runs;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    runs[i] = std::thread([&, i] {
      // The second starts while the first runs (its start would kill the first's processes).
      if (i == 1) std::this_thread::sleep_for(std::chrono::milliseconds(300));
      r[i] = run_sandboxed({"/bin/sh", "-c", "sleep 1; echo finished"}, spec);
    });
  }
  for (auto& t : runs) t.join();
  for (const auto& one : r) {
    INFO(one.stderr_text << one.error << " exit " << one.exit_status);
    CHECK(one.stdout_text == "finished\n");
    CHECK(one.exit_status == 0);
  }
  CHECK(live_processes_of(spec.sandbox_uid) == 0);
}

// A course cloned as root into a folder other users cannot enter (a home under /root, a
// `mktemp -d` folder: mode 0700): the sandbox's uid reaches exactly the listed paths through the
// sandbox's own binds, and the host sees no change (sandbox_reach.hpp).
TEST_CASE("as root the paths listed under a folder others cannot enter are reached and no more",
          "[sandbox][uid]") {
  if (geteuid() != 0) return;  // only root switches uid; a user's own 0700 folder is its own
  if (!sandbox_ready()) return;
  struct Restore {
    ~Restore() { grader::set_isolation(grader::Isolation::kBwrap); }
  } restore;
  TempDir top;
  const fs::path closed = top.path() / "home";
  fs::create_directories(closed / "course" / "ro");
  fs::create_directories(closed / "out" / "work");
  fs::permissions(closed, fs::perms(0700));
  write_text(closed / "course" / "ro" / "data.txt", "ro-data\n");
  write_text(closed / "course" / "single.txt", "one file\n");
  write_text(closed / "course" / "secret.txt", "secret\n");
  fs::permissions(closed / "course" / "secret.txt", fs::perms(0644));  // only the 0700 hides it
  const std::string mounts_before = read_text("/proc/self/mountinfo");
  auto listing = [&] {
    std::set<std::string> names;
    for (const auto& e : fs::recursive_directory_iterator(closed)) names.insert(e.path().string());
    return names;
  };

  SandboxSpec spec = quick_spec();
  spec.sandbox_uid = 61051;
  const std::string script =
      "cat \"$1/course/ro/data.txt\" \"$1/course/single.txt\"\n"
      "echo rw-ok > \"$1/out/work/out.txt\" && echo 'rw written'\n"
      "cat \"$1/course/secret.txt\" 2>/dev/null && echo 'secret visible'\n"
      "touch \"$1/course/ro/new\" 2>/dev/null && echo 'ro writable'\n"
      "echo \"uid=$(id -u)\"\n";
  const std::vector<std::string> argv = {"/bin/sh", "-c", script, "sh", closed.string()};

  SECTION("control: the folder is closed to the sandbox's uid when nothing in it is listed") {
    grader::set_isolation(grader::Isolation::kUid);
    const SandboxResult r = run_sandboxed(
        {"/bin/sh", "-c", "cat \"$1/course/ro/data.txt\" || echo 'closed'", "sh", closed.string()},
        spec);
    CHECK(r.stdout_text == "closed\n");
  }
  for (const auto iso : {grader::Isolation::kBwrap, grader::Isolation::kUid}) {
    const bool bwrap = iso == grader::Isolation::kBwrap;
    DYNAMIC_SECTION((bwrap ? "bubblewrap" : "uid isolation")) {
      grader::set_isolation(iso);
      const auto before = listing();
      spec.ro_paths = {closed / "course" / "ro", closed / "course" / "single.txt"};
      spec.rw_dir = closed / "out" / "work";
      const SandboxResult r = run_sandboxed(argv, spec);
      INFO(r.stdout_text << r.stderr_text << r.error);
      CHECK(r.error.empty());
      CHECK(r.stdout_text == std::string("ro-data\none file\nrw written\nuid=") +
                                 (bwrap ? "65534" : "61051") + "\n");
      CHECK(read_text(closed / "out" / "work" / "out.txt") == "rw-ok\n");
      // The host: the same mode, the same files (the one written by the run aside), no mount.
      CHECK((fs::status(closed).permissions() & fs::perms::all) == fs::perms(0700));
      auto after = listing();
      after.erase((closed / "out" / "work" / "out.txt").string());
      CHECK(after == before);
      CHECK(read_text("/proc/self/mountinfo") == mounts_before);
    }
  }
}

// The reach's binds are made as root: a folder on a planned path that is swapped for a link
// before the child mounts it (a sandboxed program owns its rw_dir, so such a swap is what an
// attack would try) must fail the run, never bind what the link names.
TEST_CASE("as root a folder swapped for a link after the reach was planned is not followed",
          "[sandbox][uid]") {
  if (geteuid() != 0) return;  // mounts need root
  TempDir top;
  const fs::path closed = top.path() / "home";
  fs::create_directories(closed / "course" / "ro");
  fs::create_directories(top.path() / "elsewhere" / "ro");
  fs::permissions(closed, fs::perms(0700));
  write_text(closed / "course" / "ro" / "data.txt", "course\n");
  write_text(top.path() / "elsewhere" / "ro" / "key.txt", "not for the sandbox\n");
  const grader::internal::Reach reach = grader::internal::plan_reach({closed / "course" / "ro"});
  REQUIRE_FALSE(reach.empty());
  REQUIRE(reach.overlays == std::vector<std::string>{closed.string()});

  // In a forked child (its own mount namespace): apply_reach's errno, and which file shows.
  auto apply_in_child = [&] {
    int fds[2];
    REQUIRE(pipe(fds) == 0);
    const pid_t pid = fork();
    if (pid == 0) {
      close(fds[0]);
      int msg[2] = {grader::internal::apply_reach(reach), 0};
      if (access((closed / "course" / "ro" / "data.txt").c_str(), F_OK) == 0) msg[1] |= 1;
      if (access((closed / "course" / "ro" / "key.txt").c_str(), F_OK) == 0) msg[1] |= 2;
      if (read_text("/proc/self/mountinfo").find(closed.string()) != std::string::npos) msg[1] |= 4;
      ssize_t ignored = write(fds[1], msg, sizeof msg);
      (void)ignored;
      _exit(0);
    }
    close(fds[1]);
    std::pair<int, int> got{-1, -1};
    int msg[2];
    if (read(fds[0], msg, sizeof msg) == static_cast<ssize_t>(sizeof msg)) got = {msg[0], msg[1]};
    close(fds[0]);
    waitpid(pid, nullptr, 0);
    return got;
  };
  // seen: 1 the course's file, 2 the link target's file, 4 a mount on the closed folder.
  SECTION("control: unchanged, the planned folder is bound") {
    CHECK(apply_in_child() == std::pair<int, int>{0, 1 | 4});
  }
  SECTION("swapped for a link: the child fails and mounts nothing") {
    fs::rename(closed / "course", closed / "course-moved");
    fs::create_directory_symlink(top.path() / "elsewhere", closed / "course");
    const auto [err, seen] = apply_in_child();
    CHECK(err == ELOOP);
    CHECK((seen & 4) == 0);
  }
  CHECK(read_text("/proc/self/mountinfo").find(closed.string()) == std::string::npos);
}
