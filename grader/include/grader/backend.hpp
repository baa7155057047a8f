// grader/backend.hpp - how a kernel gets run, behind one interface. The grader builds a
// WorkerRequest (file, kernel, launch, input buffers), a Backend runs it in a child process with
// a time and memory limit and returns raw outcomes: output buffers, per-line shared-memory stats
// and problems (banksim on the CPU; ncu on a GPU), timings. The judge never sees how.
#pragma once

#include <array>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "grader/spec.hpp"

namespace grader {

struct RunRequest {
  Launch launch;
  std::vector<ArgSpec> args;    ///< buffer index, or scalar (already evaluated into `ints`)
  std::vector<long long> ints;  ///< the value of each scalar argument, in order
  Buffers buffers;              ///< contents before the run (inputs filled, outputs poisoned)
  double timeout_s = 10.0;
};

struct WorkerRequest {
  ExerciseSpec::Kind kind = ExerciseSpec::Kind::kKernel;
  std::filesystem::path file;
  std::string kernel;
  std::vector<RunRequest> runs;
  std::vector<std::array<long long, 32>> host_cases;
  bool timed = false;     ///< GPU: also time each run (for the speed gate)
  bool profile = false;   ///< GPU: read the hardware counters (Nsight Compute)
  bool sanitize = false;  ///< GPU: run compute-sanitizer (memcheck, racecheck)
};

struct RunOutcome {
  bool ran = false;                                  ///< the run finished and its buffers came back
  Buffers buffers;                                   ///< contents after the run
  nlohmann::json report = nlohmann::json::object();  ///< {"sites", "issues", "completed", ...}
  double median_ms = -1.0;                           ///< GPU timing, when asked for
};

struct WorkerOutcome {
  bool started = false;
  bool compiled = false;
  std::string compile_message;  ///< "file.cu:12: error: ..."
  std::string diagnostics;      ///< the compiler's full output
  bool timed_out = false;       ///< killed by the grader's time limit
  int exit_status = 0;          ///< or 128 + signal
  std::string output_tail;      ///< the child's stdout and stderr, last few KiB
  std::vector<RunOutcome> runs;
  std::vector<int> host_results;
  double seconds = 0.0;
};

struct Limits {
  double seconds = 120.0;
  std::size_t memory_bytes = std::size_t{8} << 30;  ///< address-space limit; 0 = none
};

class Backend {
 public:
  virtual ~Backend() = default;
  /// "cpu" or "gpu".
  virtual std::string mode() const = 0;
  /// One line for reports: "CPU (banksim, bank model)" or "GPU: NVIDIA H200, driver ..., CUDA ...".
  virtual std::string describe() const = 0;
  /// Extra facts for results.json's extra_data (gpu, driver, cuda).
  virtual nlohmann::json facts() const = 0;
  /// Runs `request` in a child process working in `dir` (created empty).
  virtual WorkerOutcome run(const WorkerRequest& request, const std::filesystem::path& dir,
                            const Limits& limits) const = 0;
};

/// "cpu", "gpu" or "auto" (GPU when one is usable, else CPU). On failure returns nullptr and
/// says why in `why` (e.g. "MODE=gpu: no NVIDIA GPU found (nvidia-smi -L failed)").
std::unique_ptr<Backend> make_backend(const std::string& mode, std::string* why);

/// The GPU backend (gpu_backend.cpp); nullptr with `why` set when it cannot be used.
std::unique_ptr<Backend> make_gpu_backend(std::string* why);

/// The repository's root (for grader/include and the baselines).
std::filesystem::path course_root();

}  // namespace grader
