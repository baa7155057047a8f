// cpu_backend.cpp - the CPU backend: banksim in grade_worker, a sandboxed compile step that may
// write only the compile cache, then a sandboxed run step.
#include "grader/backend.hpp"

#include "backend_internal.hpp"
#include "banksim/tools.hpp"
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

namespace grader {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

/// An executable as this process finds it: `name` itself when it names a folder, else the first
/// on the PATH; "" when there is none.
fs::path on_path(const std::string& name) {
  if (name.find('/') != std::string::npos) return access(name.c_str(), X_OK) == 0 ? name : "";
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path != nullptr ? path : "");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    if (dir.empty()) continue;
    fs::path f = fs::path(dir) / name;
    if (access(f.c_str(), X_OK) == 0) return f;
  }
  return {};
}

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
    find_clang();
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
    const bool probe = widths_ == "auto" && job.request.kind == protocol::RequestKind::kKernel &&
                       tools_.size() == 2;
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
    // The toolkit (nvcc, nvdisasm, its <cuda/std/...> headers) and $BANKSIM_CLANG: by absolute
    // path, in both steps (the run step finds the module by the same key, which names the
    // headers' folder). One outside /usr is mounted read-only: the folder above its bin/ (a
    // toolkit's, an LLVM's), unless that holds the course (its solutions), this run's output and
    // cache, or this job's folder; then the tool's own folder only (a clang wrapper beside the
    // course's build, say), so that a file a submission names by a computed #include is not there.
    auto forward = [&](const std::string& var, const fs::path& path) {
      spec.extra_env.push_back(var + "=" + path.string());
      if (path.string().rfind("/usr/", 0) == 0) return;
      auto holds = [](const fs::path& outer, const fs::path& inner) {
        std::error_code e1, e2;
        const fs::path rel =
            fs::weakly_canonical(inner, e1).lexically_relative(fs::weakly_canonical(outer, e2));
        return e1 || e2 || (!rel.empty() && *rel.begin() != "..");  // unsure: held
      };
      for (fs::path top : {path.parent_path().parent_path(), path.parent_path()}) {
        if (!fs::exists(top)) continue;
        if (holds(top, course_root()) || holds(top, cache_) || holds(top, dir)) continue;
        spec.ro_paths.push_back(top);
        return;
      }
    };
    for (const auto& [var, path] : tools_) forward(var, path);
    if (!clang_.empty()) forward("BANKSIM_CLANG", clang_);
    spec.cpu_seconds = limits.seconds;
    spec.wall_seconds = limits.seconds;
    spec.memory_bytes = limits.memory_bytes;
    // The libraries the worker was linked with where they are not under /usr (a GPU box with
    // the course's libraries unpacked elsewhere, found through LD_LIBRARY_PATH).
    add_loader_paths(spec);
    // Messages name the file as the student knows it, not by the cache's copy.
    const std::string shown = job.shown_file;
    if (job.request.kind == protocol::RequestKind::kKernel) {
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
    if (job.request.kind == protocol::RequestKind::kKernel)
      argv.insert(argv.end(), {"--cache", cache_.string()});
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

  /// $BANKSIM_CLANG as this process finds it (on the PATH when it names no folder), for the
  /// compile step, whose PATH has only /usr/local/bin, /usr/bin and /bin: the clang that banksim
  /// compiles with (clang++-14, or a wrapper) where `clang++` is not the one to use. Not made
  /// canonical: clang reads its driver mode (C or C++) from the name it was started by.
  void find_clang() {
    const char* v = std::getenv("BANKSIM_CLANG");
    if (v == nullptr || *v == '\0') return;
    const std::string name = v;
    std::error_code ec;
    // Kept even where nothing is there (a path made absolute, a name as given): banksim's
    // message then names it, instead of falling back to another clang.
    clang_ = name.find('/') != std::string::npos ? fs::absolute(name, ec) : on_path(name);
    if (clang_.empty()) clang_ = name;
  }

  bool sandboxed_;
  fs::path cache_;
  fs::path clang_;
  std::string widths_;
  std::vector<std::pair<std::string, fs::path>> tools_;
};

}  // namespace

std::string banksim_tools_missing() {
  std::istringstream dirs(kSandboxPath);
  for (std::string dir; std::getline(dirs, dir, ':');) {
    for (const char* name : banksim::kSymbolizerNames) {
      if (access((fs::path(dir) / name).c_str(), X_OK) == 0) return "";
    }
  }
  return fmt::format(
      "banksim needs llvm-symbolizer, and none is in {} (where the sandboxed steps look): it "
      "names the source line of every access banksim reports. Without it every line would read "
      "0 and nvcc's access widths, matched by line, would be lost (an 8-byte LDS.64 nvcc merged "
      "from two reads would count as two 4-byte ones), which changes verdicts. Install it: "
      "apt-get install llvm (or llvm-14; scripts/deps.sh installs what is missing)",
      kSandboxPath);
}

std::unique_ptr<Backend> make_cpu_backend(const BackendOptions& options) {
  if (options.sandbox) sweep_orphaned_sandboxes();
  return std::make_unique<CpuBackend>(options.sandbox, options.cache_dir, options.widths);
}

}  // namespace grader
