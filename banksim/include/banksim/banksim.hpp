// banksim/banksim.hpp - the emulator's C++ API, used by the CLI, the grader and the tests.
//
//   banksim::Module m = banksim::Module::compile("lessons/02-column-read/column_read.cu",
//                                                {.kernels = {"column_read"}});
//   banksim::DeviceBuffer out(1024 * sizeof(float));
//   banksim::LaunchReport r = m.launch("column_read", {{1}, {32, 32}}, {banksim::Arg(out)});
//   for (const auto& line : r.lines) ...   // per source line: requests, wavefronts, ideal
//   for (const auto& p : r.problems) ...   // races, out-of-bounds, uninitialised reads, ...
//
// A module is the student's .cu file compiled by clang++ as host C++ (see cuda_host.hpp) into
// a shared object, with every load and store traced; launching a kernel runs every CUDA thread
// of the grid on the CPU (runtime.hpp).
#pragma once

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "bankmodel/bank_model.hpp"
#include "banksim/cuda_types.hpp"
#include "banksim/kernel_entry.hpp"
#include "banksim/rewrite.hpp"

namespace banksim {

/// The student's file did not compile. what() is a short summary naming the file and line;
/// diagnostics() has clang's full output.
class CompileError : public std::runtime_error {
 public:
  CompileError(const std::string& summary, std::string diagnostics)
      : std::runtime_error(summary), diagnostics_(std::move(diagnostics)) {}
  const std::string& diagnostics() const { return diagnostics_; }

 private:
  std::string diagnostics_;
};

/// A request that cannot be run as asked (unknown kernel, wrong number of arguments, a launch
/// configuration no GPU accepts): the message says what to change.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct CompileOptions {
  /// Kernels to make launchable; template instances as written ("transpose_tile<1>").
  std::vector<std::string> kernels;
  /// The clang++ to use; empty = $BANKSIM_CLANG or `clang++`.
  std::string clang;
  /// Where compiled modules are cached; empty = $BANKSIM_CACHE or /tmp/banksim-cache-$UID.
  std::filesystem::path cache_dir;
  /// Extra compiler flags (-D..., -I...).
  std::vector<std::string> extra_flags;
  /// false: only compile into the cache (nothing of the file runs: no static constructors);
  /// the Module can then not launch. The grader compiles this way in one sandboxed step and
  /// loads from a read-only cache in the next.
  bool load = true;
};

/// Device memory for a launch: zero-filled, with guard zones so that kernel accesses past its
/// ends are reported. Move-only.
class DeviceBuffer {
 public:
  explicit DeviceBuffer(std::size_t bytes);
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  void* data() const { return data_; }
  std::size_t bytes() const { return bytes_; }
  template <typename T>
  T* as() const {
    return static_cast<T*>(data_);
  }

 private:
  void* data_ = nullptr;
  std::size_t bytes_ = 0;
};

/// One kernel argument: a device buffer (passed as its pointer) or a scalar (up to 16 bytes).
class Arg {
 public:
  Arg(const DeviceBuffer& buffer);  // NOLINT(google-explicit-constructor): reads naturally
  template <typename T, typename = std::enable_if_t<std::is_trivially_copyable<T>::value &&
                                                    !std::is_pointer<T>::value>>
  static Arg scalar(T value) {
    static_assert(sizeof(T) <= 16, "scalar kernel arguments are at most 16 bytes");
    Arg a;
    std::memcpy(a.bytes_, &value, sizeof(T));
    a.size_ = sizeof(T);
    return a;
  }
  /// A raw pointer argument (e.g. nullptr, or into a buffer).
  static Arg pointer(void* p);

  void* storage() { return bytes_; }
  std::size_t size() const { return size_; }
  bool is_buffer() const { return is_buffer_; }

 private:
  Arg() = default;
  alignas(16) unsigned char bytes_[16] = {};
  std::size_t size_ = 0;
  bool is_buffer_ = false;
};

struct LaunchConfig {
  dim3 grid;
  dim3 block;
  std::size_t dynamic_smem = 0;
  double timeout_s = 5.0;
};

/// Shared-memory traffic of one access in the source: one line and column (all instructions of
/// that access with the same kind and width; a line holding two accesses has two).
struct LineStats {
  std::string file;
  int line = 0;
  int column = 0;      ///< of the access in its line (clang's debug info; 0 when unknown)
  std::string source;  ///< the line's text, trimmed
  bankmodel::Op op = bankmodel::Op::kLoad;
  int bytes = 0;
  std::string variable;  ///< the shared variable accessed (first seen)
  std::uint64_t requests = 0;
  std::uint64_t wavefronts = 0;
  std::uint64_t ideal = 0;
  bankmodel::Request worst{bankmodel::Op::kLoad, 4};  ///< its request with the most excess
  double wavefronts_per_request() const {
    return requests == 0 ? 0.0 : static_cast<double>(wavefronts) / static_cast<double>(requests);
  }
  double ideal_per_request() const {
    return requests == 0 ? 0.0 : static_cast<double>(ideal) / static_cast<double>(requests);
  }
  /// The k of "k-way": wavefronts / ideal over all requests of the line.
  double ways() const {
    return ideal == 0 ? 1.0 : static_cast<double>(wavefronts) / static_cast<double>(ideal);
  }
};

/// One global-memory access of the source (a line and column, load or store, width): its warp
/// requests to device buffers and the 32-byte sectors they touch. A request of 32 lanes reading
/// consecutive floats touches 4 sectors (its ideal); with a stride of 32 floats, 32.
struct GlobalLineStats {
  std::string file;
  int line = 0;
  int column = 0;
  std::string source;
  bankmodel::Op op = bankmodel::Op::kLoad;  ///< kLoad or kStore
  int bytes = 0;
  std::uint64_t requests = 0;
  std::uint64_t sectors = 0;
  std::uint64_t ideal = 0;
  std::uint64_t lines = 0;  ///< distinct 128-byte lines, summed over requests
  std::uint64_t fresh = 0;  ///< loads: sectors the warp had not loaded since its last barrier
  double sectors_per_request() const {
    return requests == 0 ? 0.0 : static_cast<double>(sectors) / static_cast<double>(requests);
  }
};

/// A problem found in a launch.
struct Problem {
  std::string kind;  ///< race, out_of_bounds, misaligned, uninitialized_read, barrier_divergence,
                     ///< same_value_write (warning), timeout, crash
  bool warning = false;
  std::string file;
  int line = 0;
  int other_line = 0;  ///< the other access of a race / the other barrier (0 if none)
  std::string variable;
  uint3 block{0, 0, 0};
  uint3 thread{0, 0, 0};
  bool has_other_thread = false;
  uint3 other_thread{0, 0, 0};
  std::string message;
  std::uint64_t count = 1;  ///< how many times it happened (same kind and lines)
  /// "column.cu:42: race: ... (block (0,0,0), threads (1,0,0) and (0,0,0); also line 40)"
  std::string to_string() const;
};

struct LaunchReport {
  std::string kernel;
  LaunchConfig config;
  std::vector<LineStats> lines;               ///< sorted by line, then loads before stores
  std::vector<GlobalLineStats> global_lines;  ///< device-buffer accesses, sorted the same way
  bool global_sectors_partial = false;        ///< very long global loops were counted in part
  std::vector<Problem> problems;
  bool completed = true;
  std::string abort_reason;
  std::uint64_t traced_shared_accesses = 0;
  std::uint64_t threads = 0;
  double seconds = 0.0;

  /// Problems that are errors (not warnings).
  std::size_t error_count() const;
  /// The line stats for `line` (loads and stores), empty if it touches no shared memory.
  std::vector<const LineStats*> at_line(int line) const;
  /// JSON as specified in docs/design.md: {"sites":[...], "issues":[...], ...}.
  nlohmann::json to_json() const;
  /// The readable table the CLI prints, then the problems.
  std::string table() const;
};

/// A compiled .cu file. Move-only; unloading it invalidates nothing already reported.
class Module {
 public:
  /// Compiles `cu_file` (cached by content). @throws CompileError, UsageError.
  static Module compile(const std::filesystem::path& cu_file, const CompileOptions& options);
  ~Module();
  Module(Module&&) noexcept;
  Module& operator=(Module&&) noexcept;

  /// Kernels declared in the file (found in the source text).
  const std::vector<KernelDecl>& declared_kernels() const;
  /// The launchable entry of a requested kernel. @throws UsageError if it was not requested.
  const KernelEntry& entry(const std::string& kernel) const;
  /// Runs a kernel. @throws UsageError for a wrong argument count or launch configuration.
  LaunchReport launch(const std::string& kernel, const LaunchConfig& config,
                      std::vector<Arg> args) const;
  /// Source file, as given to compile().
  const std::filesystem::path& file() const;
  /// The compiled shared object (in the cache), e.g. for inspecting it before it is loaded.
  std::filesystem::path shared_object() const;
  /// Turns raw program counters into source locations (used by emergency reports).
  std::pair<std::string, int> locate(std::uint64_t pc) const;

 private:
  struct Impl;
  explicit Module(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

/// Parses "X[,Y[,Z]]" into a dim3. @throws UsageError naming `what` on bad input.
dim3 parse_dim3(const std::string& text, const std::string& what);

}  // namespace banksim
