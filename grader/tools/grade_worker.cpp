// grade_worker - the CPU backend's child process: compiles one student (or baseline) file and
// runs it under banksim, as DIR/request.json asks (grader/protocol.hpp), and reports through the
// pipe the grader opened:  grade_worker DIR --report-fd N
// With --compile-only it only compiles into the cache (--cache DIR) and reports that: nothing of
// the student's file runs, so the grader can let this step write the cache it then mounts
// read-only. Inputs come from DIR/runK_bufJ.in (and host_cases.in); everything the grader trusts
// goes back as protocol frames on fd N: the compile result, each run's report (sites, problems) and
// its buffers after the run, host results. It never judges: the grader compares outputs with its
// own reference. Student code runs in this process, so a crash, hang or exit() ends only it;
// banksim's emergency handler still reports the run in progress.
#include <dlfcn.h>
#include <fmt/format.h>
#include <spawn.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

#include "banksim/banksim.hpp"
#include "banksim/runtime.hpp"
#include "grader/policy.hpp"
#include "grader/protocol.hpp"

namespace fs = std::filesystem;
namespace proto = grader::protocol;

extern char** environ;

namespace {

fs::path g_dir;
fs::path g_cache;             // --cache: banksim's compile cache
bool g_compile_only = false;  // --compile-only: build into the cache, run nothing
int g_fd = -1;
int g_run = -1;
const banksim::Module* g_module = nullptr;

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Called by banksim when the process must stop (crash, hang without memory accesses).
void emergency(const char* kind, const char* message, std::uint64_t pc) {
  if (g_run < 0) return;
  std::pair<std::string, int> where{"", 0};
  if (g_module != nullptr && pc != 0) where = g_module->locate(pc);
  proto::RunReport r;
  r.completed = false;
  r.abort_reason = message;
  r.issues.push_back(
      {kind, grader::protocol::Severity::kError, where.first, where.second, 0, message});
  proto::send_run(g_fd, static_cast<std::size_t>(g_run), r);
}

proto::RunReport to_report(const banksim::LaunchReport& l) {
  proto::RunReport r;
  r.completed = l.completed;
  r.abort_reason = l.abort_reason;
  r.widths = l.widths;
  r.nvcc_widths = l.nvcc_widths;
  r.mergeable = l.mergeable;
  r.warp_shuffles = l.warp_shuffles;
  for (const banksim::LineStats& s : l.lines) {
    proto::Site site;
    site.file = s.file;
    site.line = s.line;
    site.column = s.column;
    site.source = s.source;
    site.variable = s.variable;
    site.op = s.op;
    site.bytes = s.bytes;
    site.requests = s.requests;
    site.wavefronts = s.wavefronts;
    site.ideal = s.ideal;
    site.has_worst = true;
    site.worst_op = s.worst.op();
    site.worst_width = s.worst.width();
    for (int t = 0; t < 32; ++t) {
      site.worst_offsets[static_cast<std::size_t>(t)] =
          s.worst.is_active(t) ? static_cast<long long>(s.worst.offset(t)) : -1;
    }
    r.sites.push_back(site);
  }
  for (const banksim::GlobalLineStats& s : l.global_lines) {
    r.global_sites.push_back({s.file, s.line, s.column, s.source, s.op, s.bytes, s.requests,
                              s.sectors, s.ideal, s.lines, s.fresh});
  }
  for (const banksim::Problem& p : l.problems) {
    r.issues.push_back(
        {p.kind,
         p.warning ? grader::protocol::Severity::kWarning : grader::protocol::Severity::kError,
         p.file, p.line, p.other_line, p.message});
  }
  return r;
}

int run_kernels(const proto::Request& req) {
  banksim::CompileOptions options;
  options.kernels = {req.kernel};
  options.cache_dir = g_cache;
  options.load = !g_compile_only;
  options.widths = req.widths == "clang"   ? banksim::Widths::kClang
                   : req.widths == "probe" ? banksim::Widths::kCachedOrClang
                   : req.widths == "nvcc"  ? banksim::Widths::kNvcc
                                           : banksim::Widths::kAuto;
  for (const auto& inc : req.include_dirs) options.extra_flags.push_back("-I" + inc);
  std::optional<banksim::Module> module;
  try {
    module.emplace(banksim::Module::compile(req.file, options));
  } catch (const banksim::CompileError& e) {
    proto::send_compile(g_fd, false, e.what(), e.diagnostics());
    return 0;
  } catch (const banksim::UsageError& e) {
    proto::send_compile(g_fd, false, e.what(), "");
    return 0;
  }
  if (g_compile_only) {
    // Nothing of the file has run yet: inspect the object before anything loads it.
    const auto bad = grader::check_object_policy(module->shared_object(), false);
    if (!bad.empty()) {
      proto::send_compile(g_fd, false, req.file + ": policy: " + bad.front().message, "");
      return 0;
    }
    proto::send_compile(g_fd, true, "", "");
    return 0;
  }
  proto::send_compile(g_fd, true, "", "");
  g_module = &*module;
  for (std::size_t k = 0; k < req.runs.size(); ++k) {
    g_run = static_cast<int>(k);
    const proto::RunSpec& run = req.runs[k];
    std::vector<banksim::DeviceBuffer> buffers;
    buffers.reserve(run.buffer_bytes.size());
    for (std::size_t j = 0; j < run.buffer_bytes.size(); ++j) {
      const std::string data = read_file(g_dir / fmt::format("run{}_buf{}.in", k, j));
      buffers.emplace_back(run.buffer_bytes[j]);
      std::memcpy(buffers.back().data(), data.data(), std::min(data.size(), run.buffer_bytes[j]));
    }
    std::vector<banksim::Arg> args;
    for (const proto::Arg& a : run.args) {
      if (a.buffer >= 0) {
        args.emplace_back(buffers.at(static_cast<std::size_t>(a.buffer)));
      } else {
        args.push_back(banksim::Arg::scalar(static_cast<int>(a.value)));
      }
    }
    banksim::LaunchConfig config{dim3(run.grid[0], run.grid[1], run.grid[2]),
                                 dim3(run.block[0], run.block[1], run.block[2]), run.smem,
                                 run.timeout_s};
    proto::RunReport report;
    try {
      report = to_report(module->launch(req.kernel, config, args));
      if (req.widths == "probe" && !report.nvcc_widths && !report.mergeable) {
        // No two accesses nvcc could merge: its widths are clang's here.
        report.widths = "clang's, the same as nvcc's here (no two accesses nvcc could merge)";
        report.nvcc_widths = true;
      }
      for (const auto& b : buffers) {
        const auto* p = static_cast<const unsigned char*>(b.data());
        report.buffers.emplace_back(p, p + b.bytes());
      }
    } catch (const banksim::UsageError& e) {
      report.completed = false;
      report.abort_reason = e.what();
      report.issues.push_back(
          {"usage", grader::protocol::Severity::kError, req.file, 0, 0, e.what()});
    }
    proto::send_run(g_fd, k, report);
    // Probing, and two accesses nvcc could merge were seen: the grader runs the job again with
    // nvcc's widths, so the other sizes would be emulated for nothing.
    if (req.widths == "probe" && report.mergeable && !report.nvcc_widths) break;
  }
  g_run = -1;
  return 0;
}

/// Runs a compiler with argv (no shell), its output into `output`; returns its exit status.
int run_compiler(const std::vector<std::string>& argv, std::string* output) {
  int pipefd[2];
  if (pipe(pipefd) != 0) return -1;
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, pipefd[1], 1);
  posix_spawn_file_actions_adddup2(&fa, pipefd[1], 2);
  posix_spawn_file_actions_addclose(&fa, pipefd[0]);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = -1;
  const int rc = posix_spawnp(&pid, args[0], &fa, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  close(pipefd[1]);
  char buf[4096];
  ssize_t n;
  while ((n = read(pipefd[0], buf, sizeof buf)) > 0) output->append(buf, static_cast<size_t>(n));
  close(pipefd[0]);
  if (rc != 0) return -1;
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

bool have(const char* tool) {
  std::string out;
  return run_compiler({"sh", "-c", std::string("command -v ") + tool}, &out) == 0;
}

int run_host(const proto::Request& req) {
  const fs::path so = g_dir / "host.so";
  // clang++ as everywhere else; on a GPU machine without it, the C++ compiler nvcc uses.
  const char* cxx = have("clang++") ? "clang++" : have("g++") ? "g++" : "c++";
  std::vector<std::string> argv = {cxx, "-std=c++17", "-O1", "-g", "-fPIC", "-shared"};
  // lld links in a third of ld.bfd's time where installed (as banksim's modules).
  if (std::string(cxx) == "clang++" && have("ld.lld")) argv.push_back("-fuse-ld=lld");
  for (const auto& inc : req.include_dirs) argv.push_back("-I" + inc);
  argv.insert(argv.end(), {req.file, "-o", so.string()});
  std::string output;
  if (run_compiler(argv, &output) != 0) {
    std::string first = output.substr(0, output.find('\n'));
    const auto err = output.find("error:");
    if (err != std::string::npos) {
      const auto start = output.rfind('\n', err);
      const std::size_t from = start == std::string::npos ? 0 : start + 1;
      first = output.substr(from, output.find('\n', err) - from);
    }
    proto::send_compile(g_fd, false, first, output);
    return 0;
  }
  const auto bad = grader::check_object_policy(so, true);
  if (!bad.empty()) {
    proto::send_compile(g_fd, false, req.file + ": policy: " + bad.front().message, "");
    return 0;
  }
  void* handle = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
  void* fn = handle != nullptr ? dlsym(handle, req.kernel.c_str()) : nullptr;
  if (fn == nullptr) {
    proto::send_compile(g_fd, false,
                        fmt::format("{} does not define extern \"C\" {}(): keep the function's "
                                    "name and signature",
                                    req.file, req.kernel),
                        handle == nullptr ? dlerror() : "");
    return 0;
  }
  proto::send_compile(g_fd, true, "", "");
  const std::string cases = read_file(g_dir / "host_cases.in");
  const std::size_t n = std::min(req.host_cases, cases.size() / (32 * sizeof(long long)));
  std::vector<std::int32_t> results(n);
  using Fn = int (*)(const long long*);
  for (std::size_t i = 0; i < n; ++i) {
    long long lanes[32];
    std::memcpy(lanes, cases.data() + i * sizeof lanes, sizeof lanes);
    results[i] = reinterpret_cast<Fn>(fn)(lanes);
  }
  proto::write_frame(g_fd, proto::kHost, results.data(), results.size() * sizeof(std::int32_t));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> a(argv + 1, argv + argc);
  if (a.size() < 3 || a[1] != "--report-fd") {
    std::cerr << "usage: grade_worker DIR --report-fd N [--cache DIR] [--compile-only]   (run by "
                 "the grader, not by hand)\n";
    return 2;
  }
  g_dir = a[0];
  g_fd = std::atoi(a[2].c_str());
  for (std::size_t i = 3; i < a.size(); ++i) {
    if (a[i] == "--cache" && i + 1 < a.size()) g_cache = a[++i];
    if (a[i] == "--compile-only") g_compile_only = true;
  }
  banksim::rt::set_emergency_handler(emergency);
  try {
    const proto::Request req =
        proto::request_from_json(nlohmann::json::parse(read_file(g_dir / "request.json")));
    return req.kind == grader::protocol::RequestKind::kHost ? run_host(req) : run_kernels(req);
  } catch (const std::exception& e) {
    std::cerr << "grade_worker: " << e.what() << "\n";
    return 3;
  }
}
