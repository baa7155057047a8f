// grade_run.cpp - what `grade` does after its command line: the sandbox's checks, the backend,
// hybrid GPU mode (banksim first, on the CPU) and the GPU gate row, then one submission or a class;
// `grade calibrate` on a GPU.
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include <sys/stat.h>
#include <unistd.h>
#include "grade_cli.hpp"

#include <memory>
#include <optional>

#include "calibrate.hpp"
#include "grader/sandbox.hpp"

namespace grade_cli {

using nlohmann::json;

/// The first folder on the way to `p` that other users may not enter (no o+x), or "": there the
/// sandbox reaches `p` only through its own binds.
namespace {

std::string closed_ancestor(const fs::path& p) {
  fs::path walk;
  for (const auto& part : fs::absolute(p)) {
    walk /= part;
    struct stat st;
    if (stat(walk.c_str(), &st) != 0) break;  // not there yet: created by the grader
    if (S_ISDIR(st.st_mode) && (st.st_mode & S_IXOTH) == 0) return walk.string();
  }
  return "";
}

}  // namespace

/// The folder of this executable.
fs::path exe_dir() {
  std::error_code ec;
  return fs::canonical("/proc/self/exe", ec).parent_path();
}

int run_grading(Options& o, bool calibrate, int calibrate_runs) {
  std::string why;
  if (!o.no_sandbox && o.isolation == "uid") grader::set_isolation(grader::Isolation::kUid);
  if (!o.no_sandbox && o.isolation == "auto" && !grader::sandbox_available(&why)) {
    if (geteuid() != 0) {
      std::cerr << "grade: no sandbox for student code: " << why << "\n";
      return 2;
    }
    std::cerr << "grade: bubblewrap cannot run here (" << why.substr(0, 160)
              << "...): student code runs under uid isolation instead (its own uid, "
                 "rlimits, killed with its run; no namespaces)\n";
    grader::set_isolation(grader::Isolation::kUid);
    o.isolation_note = "bubblewrap unavailable: " + why.substr(0, 240);
  }
  if (!o.no_sandbox && grader::isolation() == grader::Isolation::kUid) {
    // Under uid isolation student code (and the compiler it drives) sees what any user may
    // read: an #include built by macros could reach the solutions. Platform packages ship none.
    const fs::path sol = grader::course_root() / "solutions";
    struct stat st {};
    if (stat(sol.c_str(), &st) == 0 && (st.st_mode & (S_IROTH | S_IXOTH)) != 0) {
      std::cerr << "grade: uid isolation lets student code read what others may: " << sol.string()
                << " is readable by others. Remove it from a grading copy of the course "
                   "(the platform packages have none) or chmod o-rwx it\n";
      return 2;
    }
  }
  if (!o.no_sandbox && geteuid() == 0) {
    // As root the sandboxes run as uids 61000-61064. A folder on the way that they cannot
    // enter (a clone in /root, or in a `mktemp -d` folder) is passed through the sandbox's own
    // binds (grader/src/sandbox_reach.hpp); a trial run says here, once, when that is
    // impossible (no CAP_SYS_ADMIN), instead of in every exercise's row.
    fs::create_directories(o.out);
    std::string closed;
    for (const fs::path& p : {fs::absolute(o.out), grader::course_root(), exe_dir()}) {
      if (closed.empty()) closed = closed_ancestor(p);
    }
    if (!closed.empty()) {
      grader::SandboxSpec trial;
      trial.ro_paths = {exe_dir(), fs::absolute(o.out)};
      trial.wall_seconds = 20;
      trial.sandbox_uid = 61064;  // the compile steps' uid: nothing runs as it before grading
      const std::string worker = (exe_dir() / "grade_worker").string();
      const grader::SandboxResult r =
          grader::run_sandboxed({"/bin/sh", "-c", "test -x \"$0\"", worker}, trial);
      if (!r.error.empty() || r.exit_status != 0) {
        std::cerr << "grade: the sandbox runs student code as another user (uids "
                     "61000-61064), who cannot enter "
                  << closed << ", and a trial sandbox could not reach " << worker
                  << " through its own binds either (status " << r.exit_status << "): " << r.error
                  << " " << r.stderr_text.substr(0, 500)
                  << "\nKeep the course, the grader and --out under folders others may enter "
                     "(e.g. /srv or /tmp), or grade your own code with NO_SANDBOX=1\n";
        return 2;
      }
    }
  }
  grader::BackendOptions bo;
  bo.sandbox = !o.no_sandbox;
  bo.cache_dir = fs::absolute(o.out) / "banksim-cache";
  bo.widths = o.widths;
  const auto backend = grader::make_backend(o.mode, bo, &why);
  if (!backend) {
    std::cerr << "grade: " << why << "\n";
    return 2;
  }
  if (calibrate) {
    CalibrateOptions co;
    co.gates_file = gates_file(o);
    co.work_dir = fs::absolute(o.out) / "calibrate";
    co.runs = calibrate_runs;
    return run_calibrate(co, *backend, selected(o));
  }
  // banksim runs every submission in CPU mode and in hybrid GPU mode: a tool it lacks would
  // change verdicts for the whole class, so it is named once, here, before any grading.
  if (!backend->capabilities().can_time || !o.gpu_only) {
    if (const std::string missing = grader::banksim_tools_missing(); !missing.empty()) {
      std::cerr << "grade: " << missing
                << (backend->capabilities().can_time
                        ? "; or grade with the GPU's tools alone (GPU_ONLY=1, --gpu-only)\n"
                        : "\n");
      return 2;
    }
  }
  // Hybrid GPU mode: banksim checks first, on the CPU (grader/judge.hpp, JudgeOptions::checker).
  std::unique_ptr<grader::Backend> checker;
  // On a GPU the baselines' counters and times are kept beside the grader's build for its next
  // run (BaselineCache): a warm re-grade profiles and times only the students.
  grader::BaselineCache baselines(
      backend->capabilities().can_time ? exe_dir().parent_path() / "gpu-baselines" : fs::path());
  std::optional<grader::GateRow> row;
  o.baselines = &baselines;
  if (backend->capabilities().can_time) {
    if (!o.gpu_only) {
      // banksim compiles each submission with clang for the CPU: without it every student
      // would lose the build gate, so say so once, here.
      const char* clang = std::getenv("BANKSIM_CLANG");
      const std::string cmd = std::string("command -v ") +
                              (clang != nullptr && *clang != '\0' ? clang : "clang++") +
                              " >/dev/null 2>&1";
      if (std::system(cmd.c_str()) != 0) {
        std::cerr << "grade: MODE=gpu checks every submission with banksim on the CPU first, "
                     "which needs clang++ (Debian/Ubuntu: apt-get install clang; "
                     "scripts/deps.sh grade-gpu): install it, or grade with the GPU's tools "
                     "alone (GPU_ONLY=1, --gpu-only)\n";
        return 2;
      }
      checker = grader::make_cpu_backend(bo);
    }
    o.checker = checker.get();
    const auto caps = backend->capabilities();
    auto table = grader::GateTable::load(gates_file(o), &why);
    if (table)
      row = grader::choose_gate_row(*table, caps.gpu_name, caps.compute_capability, selected(o),
                                    &why);
    if (!row) {
      std::cerr << "grade: " << why << "\n";
      return 2;
    }
    o.gate_row = &*row;
    std::cerr << fmt::format("grade: GPU mode on {} (compute capability {}): gate row {}\n",
                             caps.gpu_name, caps.compute_capability, row->origin);
  }
  if (!o.submissions.empty()) return grade_class(o, *backend);
  if (!fs::is_directory(o.submission)) {
    std::cerr << "grade: " << o.submission.string()
              << " is not a folder: give SUBMISSION=DIR laid out like exercises/\n";
    return 2;
  }
  const auto exercises = selected(o);
  const grader::SubmissionResult r = grade_submission(
      o.submission, o.submission.filename().string(), exercises, *backend, o, o.out / "work",
      // Exercises side by side: on a GPU, the GPU lock keeps timings and profiles one at a
      // time (gpu_lock.hpp) while builds and banksim's checks overlap them.
      std::max(1, o.jobs), o.submission.is_relative() ? o.submission : fs::path());
  write_results(r, o.out, o);
  std::cout << grader::render_table(r, o.verbose);
  std::cout << fmt::format("\nresults: {}\n", (o.out / "results.json").string());
  // For CI-style platforms (GitHub Classroom's command grader): exit 1 below full marks.
  if (o.require_full && r.score() < r.max_score()) return 1;
  return 0;
}

}  // namespace grade_cli
