// gpu_backend.cpp - the GPU backend: builds the student's kernel with nvcc for the detected
// architecture, as its own translation unit linked to gpu/worker.cu, runs it (correctness run, then
// a median of 15 CUDA-event timings with the L2 flushed and fresh inputs), reads the shared-memory
// wavefronts of every LDS/STS instruction with Nsight Compute (`--clock-control none`: the GPU's
// settings are never changed) and checks memory and races with compute-sanitizer. The worker
// (gpu/worker.cu) reports through the same protocol as the CPU worker; sites are per SASS
// instruction (line 0, the instruction as source).
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <random>
#include <regex>
#include <set>
#include <sstream>

#include "backend_internal.hpp"
#include "gpu_lock.hpp"
#include "grader/backend.hpp"
#include "grader/policy.hpp"

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

}  // namespace

namespace internal {
std::string nvcc_error(const std::string& log, const std::string& copy, const std::string& shown) {
  static const std::regex err(R"((\S+)\((\d+)\): error: ([^\n]*))");
  std::smatch m;
  if (!std::regex_search(log, m, err)) return "";
  const std::string file = m[1].str() == copy ? shown : fs::path(m[1].str()).filename().string();
  return file + ":" + m[2].str() + ": error: " + m[3].str();
}

}  // namespace internal

namespace {

class GpuBackend : public Backend {
 public:
  explicit GpuBackend(bool sandboxed) : sandboxed_(sandboxed) {
    // The toolkit's tools and where they really live: bound read-only into the sandboxes when
    // outside /usr (which every sandbox sees), and their folders first on the PATH inside.
    std::set<std::string> bins;
    for (const char* t : {"nvcc", "ncu", "compute-sanitizer"}) {
      const std::string found = shell(std::string("command -v ") + t);
      if (found.empty()) continue;
      std::error_code ec;
      for (const fs::path& p : {fs::path(found), fs::canonical(found, ec)}) {
        if (p.empty()) continue;
        bins.insert(p.parent_path().string());
        fs::path top = p.parent_path();
        while (top.has_parent_path() && top.parent_path() != top.root_path() &&
               top.parent_path() != "/opt" && top.parent_path() != "/usr/local") {
          top = top.parent_path();
        }
        if (top.string().rfind("/usr/", 0) != 0 && top != "/usr" &&
            std::find(tool_roots_.begin(), tool_roots_.end(), top) == tool_roots_.end()) {
          tool_roots_.push_back(top);
        }
      }
    }
    for (const auto& b : bins) path_ += b + ":";
    path_ += kSandboxPath;
    gpu_ = shell("nvidia-smi --query-gpu=name --format=csv,noheader | head -1");
    driver_ = shell("nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1");
    std::string cap = shell("nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1");
    cc_ = cap;
    // A GPU name given by the instructor (COURSE_GPU_NAME) replaces the driver's: tests of the
    // gate table's messages, and a GPU model the driver names oddly.
    if (const char* name = std::getenv("COURSE_GPU_NAME"); name != nullptr && *name != '\0') {
      gpu_ = name;
    }
    cap.erase(std::remove(cap.begin(), cap.end(), '.'), cap.end());
    arch_ = cap.empty() ? "90" : cap;
    cuda_ = shell("nvcc --version | grep -o 'release [0-9.]*' | cut -d' ' -f2");
    ncu_ = have("ncu");
    std::string harness_key = harness_sources();
    for (const auto& f : course::nvcc_flags(arch_)) harness_key += "\x1f" + f;
    harness_id_ = fmt::format("{:016x}", std::hash<std::string>{}(harness_key));
    sanitizer_ = have("compute-sanitizer");
    // memcheck's --padding puts a guard after every allocation: an edge tile that reads past
    // `in` lands in the guard, not in the next buffer (where memcheck would see valid memory).
    sanitizer_padding_ =
        sanitizer_ && shell("compute-sanitizer --help | grep -c -- '--padding'") != "0";
    GpuGate::process();  // its accounts of the GPU's time start with the backend
  }
  Capabilities capabilities() const override {
    Capabilities c;
    c.name = "gpu";
    c.can_time = true;
    c.can_profile = ncu_;
    c.can_sanitize = sanitizer_;
    c.conflict_tolerance = 1.05;  // counters include arbitration noise: 1.01x seen when ideal
    c.sites_have_lines = false;   // ncu's source page is read as SASS
    c.gpu_name = gpu_;
    c.compute_capability = cc_;
    return c;
  }
  std::string describe() const override {
    return fmt::format("GPU: {} (sm_{}), driver {}, CUDA {}; timed speed-ups{}{}", gpu_, arch_,
                       driver_, cuda_, ncu_ ? ", Nsight Compute counters" : " (no ncu)",
                       sanitizer_ ? ", compute-sanitizer" : " (no compute-sanitizer)");
  }
  json facts() const override {
    return {{"mode", "gpu"},
            {"gpu", gpu_},
            {"compute_capability", cc_},
            {"arch", "sm_" + arch_},
            {"driver", driver_},
            {"cuda", cuda_},
            {"ncu", ncu_},
            {"compute_sanitizer", sanitizer_},
            // What a time depends on besides the GPU: the harness that takes it (and the flags).
            {"harness", harness_id_}};
  }

  std::string usage() const override {
    const GpuGate::Usage u = GpuGate::process().usage();
    std::vector<std::string> lock_first;
    if (!worker_go_) lock_first.emplace_back("the worker");
    if (!ncu_go_) lock_first.emplace_back("ncu");
    if (!sanitizer_go_) lock_first.emplace_back("compute-sanitizer");
    return gpu_usage_line(u.alone_seconds, u.alone_steps, u.shared_seconds, u.shared_steps,
                          u.gatherings, u.idle_seconds, lock_first);
  }

  WorkerOutcome run(const WorkerJob& job, const fs::path& dir,
                    const Limits& cpu_limits) const override {
    // The time limit holds; an address-space limit would break CUDA (its context reserves far
    // more virtual memory than it uses), so GPU children run without one.
    const Limits limits{cpu_limits.seconds, 0};
    WorkerOutcome out;
    write_inputs(job, dir);
    if (job.request.kind == protocol::RequestKind::kHost) {
      // Host exercises have no kernel: the CPU worker grades them the same way on any machine,
      // on a copy of the file in the worker's own folder (the sandbox sees nothing else of the
      // submission).
      WorkerJob local = job;
      const fs::path copy = dir / "src" / fs::path(job.request.file).filename();
      fs::create_directories(copy.parent_path());
      std::ofstream(copy, std::ios::binary) << read_file(job.request.file);
      local.request.file = copy.string();
      write_inputs(local, dir);
      SandboxSpec spec = base_spec(cpu_limits);
      for (const fs::path& p :
           {self_dir(), self_dir().parent_path() / "lib", course_root() / "gpu" / "include",
            course_root() / "banksim" / "include"}) {
        if (fs::exists(p)) spec.ro_paths.push_back(p);
      }
      spec.memory_bytes = cpu_limits.memory_bytes;
      spec.rw_dir = dir;
      spec.sandbox_uid = next_sandbox_uid();
      run_worker(
          {(self_dir() / "grade_worker").string(), dir.string(), "--report-fd", "{report_fd}"},
          spec, sandboxed_, local, out);
      show_file_as(out, copy.string(), job.shown_file);
      return out;
    }
    const fs::path worker = dir / "worker";
    std::string failure;
    if (!build_worker(job, dir, &failure)) {
      out.started = true;
      out.exit_status = 1;
      out.report.runs.resize(job.request.runs.size());
      out.report.run_received.assign(job.request.runs.size(), false);
      out.report.compile = {true, false, failure, read_file(dir / "build.log")};
      show_file_as(out, student_copy(job, dir).string(), job.shown_file);
      return out;
    }
    // Correctness run and timing, then hardware counters per instruction and the sanitizers on
    // runs without timing loops: each in its own sandbox that sees the GPU's device nodes.
    const fs::path lock_dir = self_dir().parent_path() / "gpu-harness";
    fs::create_directories(lock_dir);
    // Timing runs and ncu hold the GPU alone (two ncu profiles at once on one H200: "An error
    // was reported by the driver", measurements/gpu-grading/2026-12-03-class-scale.md); plain
    // runs and the sanitizers share it. A worker reads its inputs before it touches the GPU, so
    // the lock is taken while it does (GoWord), and says when it is done with the GPU, before
    // its outputs go back: a timing holds the GPU for the GPU's work only.
    using Clock = std::chrono::steady_clock;
    double waited = 0.0;  // for the step's timings: how long others held the GPU
    auto hold = [&waited](GpuLock& lock, bool alone) {
      const auto t0 = Clock::now();
      lock.set(alone);
      waited += std::chrono::duration<double>(Clock::now() - t0).count();
    };
    GpuLock gpu_lock(lock_dir / "gpu.lock");
    // Each GPU step (the worker, ncu or compute-sanitizer over it) holds the lock from the
    // worker's go word to its word back (run_gated): a tool's start, the worker's inputs, its
    // outputs and a profiler's report happen outside it.
    auto gated = [&](std::vector<std::string> argv, const SandboxSpec& s, bool alone,
                     std::atomic<bool>& passes, const GpuStep& step) {
      run_gated(
          std::move(argv), s, dir / kNoGoWordFile, passes, [&] { hold(gpu_lock, alone); },
          [&] { gpu_lock.release(); }, step);
    };
    SandboxSpec spec = base_spec(limits);
    spec.rw_dir = dir;
    spec.dev_nodes = gpu_nodes();
    spec.sandbox_uid = next_sandbox_uid();
    if (!job.profile_only) {
      gated({worker.string(), dir.string(), "--report-fd", "{report_fd}"}, spec, job.request.timed,
            worker_go_, [&](const std::vector<std::string>& argv, const SandboxSpec& s) {
              out = WorkerOutcome{};
              run_worker(argv, s, sandboxed_, job, out);
            });
    }
    if (ncu_ && job.profile && (job.profile_only || out.exit_status == 0)) {
      WorkerOutcome prof;
      SandboxSpec p = spec;
      p.wall_seconds = p.cpu_seconds = 300;
      p.profiler = true;  // the driver gives counters to admins only: see SandboxSpec::profiler
      SandboxResult page;
      auto profile = [&](NcuCounters counters) {
        // ncu starts (about 0.5 s on the H200) and writes its report (0.2 s) outside the lock:
        // measurements/gpu-grading/2026-12-03-class-scale.md, "one profile's phases".
        auto ncu_step = [&](const std::string& kernel) {
          gated(resolve(ncu_argv(kernel, job.request.runs.size(), (dir / "prof").string(),
                                 worker.string(), dir.string(), counters)),
                p, true, ncu_go_, [&](const std::vector<std::string>& argv, const SandboxSpec& s) {
                  prof = WorkerOutcome{};
                  run_worker(argv, s, sandboxed_, job, prof);
                });
        };
        ncu_step(job.request.kernel);
        if (prof.output_tail.find("No kernels were profiled") != std::string::npos) {
          // This ncu named the kernel otherwise than its filter expects: every launch of the
          // worker is the kernel's (the job's sizes, in order), so profile them unfiltered.
          ncu_step("");
        }
        // Reading the report is CPU work: the GPU is free for other students' steps meanwhile.
        gpu_lock.release();
        // The report file was written in the sandbox's folder: read by ncu, size-capped, never
        // trusted beyond the shared-memory counters it gives.
        page = tool(resolve({"ncu", "-i", (dir / "prof.ncu-rep").string(), "--page", "source",
                             "--csv", "--print-source", "sass"}),
                    p, std::size_t{64} << 20);
        return parse_source_page(page.stdout_text, job.request.file);
      };
      const bool section = ncu_section_.load();
      auto launches = profile(section ? NcuCounters::kSection : NcuCounters::kMetrics);
      if (launches.empty() && !section && prof.exit_status == 0 && !prof.timed_out) {
        // The kernel ran but this ncu gave no page for the metrics by name: its section, and
        // from now on for every profile of this grading.
        launches = profile(NcuCounters::kSection);
        if (!launches.empty()) ncu_section_ = true;
      }
      if (launches.empty()) {
        std::string why = prof.output_tail + page.stderr_text + page.error;
        std::ofstream(dir / "ncu.log", std::ios::app) << why;
        out.counters_error = ncu_failure(why, prof.exit_status);
      }
      if (job.profile_only) {
        // The profiled run is the job's only run: its report (outputs, a fault) is the job's.
        const std::string counters_error = out.counters_error;
        out = prof;
        out.counters_error = counters_error;
      }
      for (std::size_t k = 0; k < launches.size() && k < out.report.runs.size(); ++k) {
        auto& run = out.report.runs[k];
        run.sites.insert(run.sites.end(), launches[k].sites.begin(), launches[k].sites.end());
        run.global_sites.insert(run.global_sites.end(), launches[k].global_sites.begin(),
                                launches[k].global_sites.end());
        run.warp_shuffles += launches[k].warp_shuffles;
      }
    }
    // The sanitizers share the GPU with plain runs (never with a timing: see GpuLock); each
    // takes its hold once its worker has read its inputs.
    gpu_lock.release();
    // A kernel that ran gets the job's tools; one that stopped the GPU (not a hang) gets
    // memcheck, which names the access that did it ("illegal memory access" alone says nothing).
    const bool faulted = out.started && out.exit_status != 0 && !out.timed_out;
    if (sanitizer_ && job.sanitize && (out.exit_status == 0 || faulted) &&
        !out.report.runs.empty() && !job.sanitizer_tools.empty()) {
      std::vector<std::string> tools = job.sanitizer_tools;
      if (out.exit_status != 0) tools = {"memcheck"};
      for (const std::string& name : tools) {
        SandboxSpec t = spec;
        t.wall_seconds = t.cpu_seconds = 300;
        SandboxResult r;
        gated(resolve(sanitizer_argv(name, worker.string(), dir.string(), sanitizer_padding_)), t,
              false, sanitizer_go_,
              [&](const std::vector<std::string>& argv, const SandboxSpec& s) {
                r = tool(argv, s, std::size_t{1} << 20);
              });
        auto issues = sanitizer_issues(r.stdout_text + r.stderr_text, name);
        if (issues.empty() && out.exit_status == 0) {
          // No finding counts only from a run that finished: no summary, no check.
          issues = sanitizer_unfinished(r.stdout_text + r.stderr_text, name, r.timed_out,
                                        r.exit_status, static_cast<int>(t.wall_seconds));
        }
        auto& into = out.report.runs.back().issues;
        into.insert(into.end(), issues.begin(), issues.end());
      }
    }
    // The tools name the copy nvcc compiled, or the file as the request gave it.
    show_file_as(out, student_copy(job, dir).string(), job.shown_file);
    show_file_as(out, job.request.file, job.shown_file);
    out.gpu_wait_seconds = waited;
    return out;
  }

 private:
  /// The timing harness's sources and the GPU's architecture: what its object depends on.
  std::string harness_sources() const {
    std::string text = arch_;
    for (const char* f :
         {"gpu/worker.cu", "gpu/harness.cuh", "grader/include/grader/protocol.hpp",
          "bankmodel/include/bankmodel/bank_model.hpp", "gpu/include/course_todo.h"}) {
      text += read_file(course_root() / f);
    }
    return text;
  }

  /// Where build_worker puts the copy of the file under test that nvcc compiles.
  static fs::path student_copy(const WorkerJob& job, const fs::path& dir) {
    return dir / "src" / fs::path(job.request.file).filename();
  }

  static std::vector<std::string> resolve(std::vector<std::string> argv) {
    const std::string full = shell("command -v " + argv[0]);
    if (!full.empty()) argv[0] = full;
    return argv;
  }

  /// The toolkit's library folders (libcublas.so), next to nvcc's bin/.
  static std::vector<fs::path> cuda_lib_dirs() {
    std::vector<fs::path> dirs;
    const std::string nvcc = shell("command -v nvcc");
    if (nvcc.empty()) return dirs;
    std::error_code ec;
    const fs::path top = fs::canonical(nvcc, ec).parent_path().parent_path();
    for (const char* sub : {"lib64", "targets/x86_64-linux/lib", "targets/sbsa-linux/lib"}) {
      if (fs::exists(top / sub / "libcublas.so", ec)) dirs.push_back(top / sub);
    }
    return dirs;
  }

  /// Limits, the CUDA toolkit and the driver's libraries, common to every step.
  SandboxSpec base_spec(const Limits& limits) const {
    SandboxSpec spec;
    spec.cpu_seconds = limits.seconds;
    spec.wall_seconds = limits.seconds;
    spec.memory_bytes = limits.memory_bytes;
    spec.ro_paths = tool_roots_;
    // NVIDIA's tools find their parts under /opt/nvidia as well (ncu's wrapper looks for its
    // nsight-compute folder there): read-only, like /usr.
    std::error_code ec;
    if (fs::is_directory("/opt/nvidia", ec) && std::find(spec.ro_paths.begin(), spec.ro_paths.end(),
                                                         "/opt/nvidia") == spec.ro_paths.end()) {
      spec.ro_paths.push_back("/opt/nvidia");
    }
    add_loader_paths(spec);
    spec.extra_env.push_back("PATH=" + path_);
    return spec;
  }

  /// The GPU's device nodes (/dev/nvidia0, nvidiactl, nvidia-uvm, the MIG capabilities...).
  static std::vector<std::string> gpu_nodes() {
    std::vector<std::string> nodes;
    std::error_code ec;
    for (const fs::path& dir : {fs::path("/dev"), fs::path("/dev/nvidia-caps")}) {
      for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (name.rfind("nvidia", 0) == 0 && it->is_character_file(ec)) {
          nodes.push_back(it->path().string());
        }
      }
    }
    return nodes;
  }

  /// A tool run whose output is read (not a worker: no report pipe).
  SandboxResult tool(const std::vector<std::string>& argv, SandboxSpec spec,
                     std::size_t output_cap) const {
    spec.output_cap = output_cap;
    try {
      return sandboxed_ ? run_sandboxed(argv, spec) : run_unsandboxed(argv, spec);
    } catch (const std::exception& e) {
      SandboxResult r;
      r.exit_status = 127;
      r.error = e.what();
      return r;
    }
  }

  /// Builds DIR/worker: the timing harness (the grader's own code, built once per content,
  /// unsandboxed) linked with the student's file compiled as its own translation unit in a
  /// sandbox that may write only DIR; between the two, the compiled object is checked against
  /// the submission policy (grader/policy.hpp). Cached by content. False with *failure set when
  /// the file does not compile or breaks the policy.
  bool build_worker(const WorkerJob& job, const fs::path& dir, std::string* failure) const {
    const fs::path root = course_root();
    const fs::path cache = dir.parent_path() / "gpu-build-cache";
    fs::create_directories(cache);
    // The course's one nvcc flag set (what the benchmarks and CPU mode's SASS widths use too).
    const std::vector<std::string> flags = course::nvcc_flags(arch_);
    // The harness object.
    const std::string harness_text = harness_sources();
    // Beside the grader's own binaries (written by the grader only), so that every run of this
    // grader shares it: nvcc needs about half a minute for it.
    const fs::path harness_dir = self_dir().parent_path() / "gpu-harness";
    fs::create_directories(harness_dir);
    // The build's own harness (CMake target gpu_harness) where it was built for this GPU's
    // architecture; otherwise one built here, once per content.
    const fs::path prebuilt = harness_dir / ("prebuilt-sm_" + arch_ + ".o");
    const fs::path harness =
        fs::exists(prebuilt) ? prebuilt
                             : harness_dir / fmt::format("harness-{:016x}.o",
                                                         std::hash<std::string>{}(harness_text));
    if (!fs::exists(harness)) {
      const std::string tmp = harness.string() + fmt::format(".{:08x}.tmp", std::random_device{}());
      std::vector<std::string> argv = {"nvcc"};
      argv.insert(argv.end(), flags.begin(), flags.end());
      argv.insert(
          argv.end(),
          {"-I" + (root / "gpu").string(), "-I" + (root / "gpu/include").string(),
           "-I" + (root / "grader/include").string(), "-I" + (root / "bankmodel/include").string(),
           "-c", (root / "gpu/worker.cu").string(), "-o", tmp});
      WorkerOutcome h;
      run_child(resolve(argv), dir, Limits{300.0, 0}, h, "harness-build.log");
      if (h.exit_status != 0) {
        *failure = "the grader's GPU harness did not build (a grader problem, not yours): " +
                   read_file(dir / "harness-build.log").substr(0, 2000);
        return false;
      }
      fs::rename(tmp, harness);
    }
    // The submission policy on the source, as in CPU mode, before nvcc sees it.
    const std::string text = read_file(job.request.file);
    // Messages name the file as the student knows it.
    const std::string base = fs::path(job.request.file).filename().string();
    const std::string name = job.shown_file.empty() ? base : job.shown_file;
    if (const auto v = check_source_policy(text); !v.empty()) {
      *failure = fmt::format("{}:{}: policy: {}", name, v.front().line, v.front().message);
      if (v.size() > 1) *failure += fmt::format(" (+{} more)", v.size() - 1);
      return false;
    }
    // The student's unit: a copy of the file in DIR, included by a generated wrapper.
    const fs::path src = student_copy(job, dir);
    fs::create_directories(src.parent_path());
    std::ofstream(src, std::ios::binary) << text;
    const std::string unit = fmt::format(
        "// Generated by the grader: the file under test as its own translation unit.\n"
        "#include \"course_todo.h\"\n#include \"{}\"\n"
        "extern \"C\" const void* course_student_kernel() {{\n"
        "  return reinterpret_cast<const void*>(&{});\n}}\n",
        src.string(), job.request.kernel);
    std::ofstream(dir / "student_unit.cu") << unit;
    const std::string key = fmt::format(
        "{:016x}", std::hash<std::string>{}(text + unit + harness.filename().string() + arch_));
    const fs::path cached = cache / key;
    const fs::path worker = dir / "worker";
    if (fs::exists(cached / "worker")) {
      fs::copy_file(cached / "worker", worker, fs::copy_options::overwrite_existing);
      return true;
    }
    SandboxSpec build = base_spec(Limits{180.0, 0});
    build.ro_paths.push_back(root / "gpu" / "include");
    build.ro_paths.push_back(harness_dir);
    build.rw_dir = dir;
    build.sandbox_uid = kCompileUid;
    build.processes = 128;
    std::vector<std::string> compile = {"nvcc"};
    compile.insert(compile.end(), flags.begin(), flags.end());
    compile.insert(compile.end(),
                   {"-I" + (root / "gpu/include").string(), "-c",
                    (dir / "student_unit.cu").string(), "-o", (dir / "student.o").string()});
    SandboxResult r = tool(resolve(compile), build, std::size_t{1} << 20);
    std::ofstream(dir / "build.log") << r.stdout_text << r.stderr_text << r.error;
    if (r.exit_status != 0 || !fs::exists(dir / "student.o")) {
      *failure = nvcc_error(r.stdout_text + r.stderr_text, src.string(), name);
      if (failure->empty()) {
        *failure = "nvcc could not build the kernel";
        if (!r.error.empty()) *failure += ": " + r.error;
      }
      return false;
    }
    const auto violations = check_gpu_object_policy(dir / "student.o", harness);
    if (!violations.empty()) {
      *failure = name + ": policy: " + violations.front().message;
      if (violations.size() > 1) *failure += fmt::format(" (+{} more)", violations.size() - 1);
      return false;
    }
    std::vector<std::string> link = {
        "nvcc", "-arch=sm_" + arch_, harness.string(), (dir / "student.o").string(), "-lcublas",
        "-o",   worker.string()};
    // cuBLAS (the SGEMM ceiling) is found where the toolkit keeps it, inside every sandbox.
    for (const fs::path& lib : cuda_lib_dirs()) {
      link.insert(link.end() - 2, "-Xlinker");
      link.insert(link.end() - 2, "-rpath=" + lib.string());
    }
    r = tool(resolve(link), build, std::size_t{1} << 20);
    std::ofstream(dir / "build.log", std::ios::app) << r.stdout_text << r.stderr_text << r.error;
    if (r.exit_status != 0 || !fs::exists(worker)) {
      *failure = "the kernel compiled but did not link with the grader's harness: " +
                 (r.stderr_text.empty() ? r.error : r.stderr_text.substr(0, 500));
      return false;
    }
    fs::create_directories(cached);
    const fs::path tmp = cached / fmt::format("worker.{:08x}.tmp", std::random_device{}());
    fs::copy_file(worker, tmp, fs::copy_options::overwrite_existing);
    fs::rename(tmp, cached / "worker");
    return true;
  }

  bool sandboxed_ = true;
  std::string harness_id_;            ///< the timing harness's sources and flags, hashed
  std::vector<fs::path> tool_roots_;  ///< toolkit folders outside /usr, bound read-only
  std::string path_;                  ///< PATH inside: the toolkit's bin folders first
  std::string gpu_, driver_, arch_, cuda_;
  std::string cc_;  ///< compute capability as the driver prints it: "9.0"
  bool ncu_ = false;
  /// This ncu gave no source page for the metrics by name, and one for SourceCounters.
  mutable std::atomic<bool> ncu_section_{false};
  /// Whether the worker's go word reaches it when it runs alone, under ncu, under
  /// compute-sanitizer (each false from the first step whose worker did not get it).
  mutable std::atomic<bool> worker_go_{true}, ncu_go_{true}, sanitizer_go_{true};
  bool sanitizer_ = false;
  bool sanitizer_padding_ = false;
};

}  // namespace

std::unique_ptr<Backend> make_gpu_backend(const BackendOptions& options, std::string* why) {
  if (!have("nvcc")) {
    *why =
        "MODE=gpu: a GPU is present but nvcc is not on the PATH: install the CUDA toolkit, or "
        "grade with MODE=cpu";
    return nullptr;
  }
  if (options.sandbox) sweep_orphaned_sandboxes();
  return std::make_unique<GpuBackend>(options.sandbox);
}

}  // namespace grader
