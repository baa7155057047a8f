// grader/backend.hpp - how a kernel gets run, behind one interface. The judge builds a WorkerJob
// (a protocol::Request plus the input buffers), a Backend runs it in a child process with limits
// and returns the validated protocol::Report plus how the process ended. What a backend can do
// is described by its Capabilities (time, profile, sanitize, counter tolerance), never by a mode
// string. The judge never sees how a kernel runs.
/// \file
/// How a kernel gets run: the Backend interface, the worker job and how the worker process ended.
#pragma once

#include <array>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "course/registry.hpp"
#include "grader/grading_policy.hpp"
#include "grader/protocol.hpp"

namespace grader {

// The registry's names, as the grader uses them (its exercises() and find_exercise() are the
// registry's table with the grading policy applied: grader/grading_policy.hpp).
using course::Buffers;
using course::ExerciseSpec;
using course::Size;

/// What the judge asks one worker process to do.
struct WorkerJob {
  protocol::Request request;    ///< file, kernel, runs (geometry, arguments, buffer sizes)
  std::vector<Buffers> inputs;  ///< per run: every buffer's contents before it
  std::vector<std::array<long long, 32>> host_cases;  ///< host exercises
  bool profile = false;   ///< read the hardware counters (when the backend can)
  bool sanitize = false;  ///< run the GPU sanitizers (when the backend can)
  /// GPU: the counters alone: the only run is the profiled one (its outputs and report are the
  /// job's), no plain run before it (hybrid mode: banksim has judged the outputs at these sizes).
  bool profile_only = false;
  /// GPU: which compute-sanitizer tools a sanitized job runs (memcheck first); hybrid mode runs
  /// memcheck alone, banksim having looked for races, uninitialised reads and divergent barriers.
  std::vector<std::string> sanitizer_tools = {"memcheck", "racecheck", "initcheck", "synccheck"};
  /// CPU, default widths: nvcc's widths are expected to matter (ExerciseSpec's
  /// nvcc_widths_expected): read them at once rather than after a run with clang's.
  bool nvcc_widths_expected = false;
  /// How messages name request.file, as the student knows it
  /// ("exercises/04-padding-transpose/transpose.cu"): a backend compiles a copy elsewhere (a cache,
  /// a temporary folder) and writes this name wherever the copy's path would show (compiler errors,
  /// problems). Empty: left as it is.
  std::string shown_file;
};

/// How the worker process ended, and what it reported.
struct WorkerOutcome {
  bool started = false;     ///< the worker process was started
  bool timed_out = false;   ///< killed by the grader's time limit
  int exit_status = 0;      ///< or 128 + signal
  std::string output_tail;  ///< the child's stdout and stderr, last few KiB
  double seconds = 0.0;     ///< wall-clock time of the process
  protocol::Report report;  ///< validated frames from the report pipe
  /// Set when hardware counters were asked for and could not be read (the profiler's message):
  /// the gates that need them then say so instead of judging an empty profile.
  std::string counters_error;
  /// Seconds the step waited for the GPU (another student's timing or profile held it).
  double gpu_wait_seconds = 0.0;
  /// Run k finished and all its buffers came back.
  bool ran(std::size_t k) const {
    return k < report.runs.size() && report.run_received[k] && report.runs[k].completed &&
           !report.runs[k].buffers.empty();
  }
};

/// Time and memory limits of one worker process.
struct Limits {
  double seconds = 120.0;  ///< time limit in seconds (the sandbox applies it to CPU and wall time)
  std::size_t memory_bytes = std::size_t{8} << 30;  ///< address-space limit; 0 = none
};

/// What a backend can do, for the judge's gates and the report.
struct Capabilities {
  std::string name;           ///< "cpu" or "gpu", for reports and results.json
  bool can_time = false;      ///< real kernel timings (the speed gate times kernels)
  bool can_profile = false;   ///< per-instruction hardware counters
  bool can_sanitize = false;  ///< compute-sanitizer
  /// Allowed wavefronts / ideal before an access counts as conflicting: banksim's counts are
  /// exact (1.0); hardware counters include arbitration noise (1.05).
  double conflict_tolerance = 1.0;
  bool sites_have_lines = true;  ///< sites name source lines (not SASS instructions)
  /// Every size of a kernel exercise runs in one worker process first (one sandbox, one compile
  /// load, one symbolizer); only when that process fails do the sizes run one per process, so
  /// each failure is told at its size.
  bool batch_sizes = false;
  /// The GPU's name as the driver reports it ("NVIDIA H200"); empty on the CPU. With
  /// compute_capability, it picks the row of the GPU gate table (grader/gpu_gates.hpp).
  std::string gpu_name;
  /// The GPU's compute capability, "9.0"; empty on the CPU.
  std::string compute_capability;
};

/// A way to run worker jobs: banksim on the CPU, or the course's GPU worker.
class Backend {
 public:
  /// Virtual: backends are owned through Backend pointers.
  virtual ~Backend() = default;
  /// What it can do.
  virtual Capabilities capabilities() const = 0;
  /// One line for reports: "CPU (banksim, bank model)" or "GPU: NVIDIA H200, driver ..., CUDA ...".
  virtual std::string describe() const = 0;
  /// Extra facts for results.json's extra_data (gpu, driver, cuda).
  virtual nlohmann::json facts() const = 0;
  /// Runs `job` in a child process working in `dir` (created empty).
  virtual WorkerOutcome run(const WorkerJob& job, const std::filesystem::path& dir,
                            const Limits& limits) const = 0;
  /// How the backend's shared resource was used since it was made, in one line for a class's
  /// log ("GPU held alone 412 s (420 steps), ..."), or "" when there is nothing to say.
  virtual std::string usage() const { return ""; }
};

/// How backends run workers.
struct BackendOptions {
  /// Every worker in a bubblewrap sandbox (grader/sandbox.hpp). false only for an instructor's
  /// explicit --no-sandbox on trusted code.
  bool sandbox = true;
  /// The compile cache: written only by compile steps (where no student code runs), mounted
  /// read-only where student code runs. Must lie outside every submission.
  std::filesystem::path cache_dir;
  /// CPU: whose access widths the bank model sees: "auto" (nvcc's, read from its SASS for
  /// sm_90, when nvcc and nvdisasm are found; else clang's), "nvcc" or "clang".
  std::string widths = "auto";
};

/// "cpu", "gpu" or "auto" (GPU when one is usable, else CPU). On failure returns nullptr and
/// says why in `why` (e.g. "MODE=gpu: no NVIDIA GPU found (nvidia-smi -L failed)", or that the
/// sandbox is missing and what to install).
std::unique_ptr<Backend> make_backend(const std::string& mode, const BackendOptions& options,
                                      std::string* why);

/// The CPU backend (banksim in sandboxed child processes).
std::unique_ptr<Backend> make_cpu_backend(const BackendOptions& options);

/// What banksim's runs need that this machine lacks, as one message naming the tool, why it
/// matters and how to install it; "" when nothing is missing. Looked for where the sandboxed
/// steps look (kSandboxPath), by banksim's own names (banksim/tools.hpp): llvm-symbolizer, without
/// which every reported line reads 0 and nvcc's access widths (matched by line) are lost.
std::string banksim_tools_missing();

/// The GPU backend (gpu_backend.cpp); nullptr with `why` set when it cannot be used.
std::unique_ptr<Backend> make_gpu_backend(const BackendOptions& options, std::string* why);

/// The repository's root (for the baselines and gpu/include).
std::filesystem::path course_root();

}  // namespace grader
