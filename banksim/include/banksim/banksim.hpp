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
/// \file
/// The emulator's C++ API: compile a .cu file into a Module, launch its kernels, read the
/// LaunchReport.
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

/// The emulator: compiles a .cu file as host C++ and runs its kernels on the CPU, every access
/// traced.
namespace banksim {

/// The student's file did not compile. what() is a short summary naming the file and line;
/// diagnostics() has clang's full output.
class CompileError : public std::runtime_error {
 public:
  /// `summary` becomes what(); `diagnostics` is clang's full output.
  CompileError(const std::string& summary, std::string diagnostics)
      : std::runtime_error(summary), diagnostics_(std::move(diagnostics)) {}
  /// Clang's full output for the failed compile.
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

/// Which access widths the bank model sees (CompileOptions::widths).
enum class Widths {
  kAuto,   ///< nvcc's, read from its SASS for sm_90, when nvcc and nvdisasm are found; else clang's
  kNvcc,   ///< nvcc's, or a UsageError naming what is missing
  kClang,  ///< the widths of the code clang compiled for the CPU, as traced
  /// nvcc's when the cache already holds them for this file, else clang's without running nvcc
  /// (LaunchReport::mergeable then says whether nvcc's could differ)
  kCachedOrClang
};

/// How Module::compile() compiles and loads a .cu file.
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
  /// Whose access widths count: nvcc's (what the GPU runs: it merges bs[tx][kk] and
  /// bs[tx][kk + 1] into one LDS.64 where it can prove the alignment) or clang's. nvcc and
  /// nvdisasm come from $BANKSIM_NVCC / $BANKSIM_NVDISASM, else the PATH (nvdisasm also beside
  /// nvcc); their result is cached beside the module.
  Widths widths = Widths::kAuto;
  /// Cut kernels whose barriers a thread passes at most once into regions (a call per thread
  /// and barrier instead of a fiber per thread; banksim/pass/regions.cpp), where the pass is
  /// built for this clang. false (or BANKSIM_FIBERS=1): every thread a fiber (the pass still
  /// keeps the loop epochs that group a divergent loop's requests by iteration).
  bool regions = true;
  /// The compute capability whose SASS gives nvcc's widths ("90"); empty = the course's
  /// (course::kDefaultGpuArch). nvcc's flags are the course's (course::nvcc_flags).
  std::string gpu_arch;
};

/// Device memory for a launch: zero-filled, with guard zones so that kernel accesses past its
/// ends are reported. Move-only.
class DeviceBuffer {
 public:
  /// Allocates `bytes` zero-filled bytes between guard zones.
  explicit DeviceBuffer(std::size_t bytes);
  /// Frees the memory (rt::device_free()).
  ~DeviceBuffer();
  /// Takes over `other`'s memory; `other` is left empty (null, 0 bytes).
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  /// Frees this buffer's memory, then takes over `other`'s; `other` is left empty.
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  /// Start of the usable memory (the address kernels see); null once moved from.
  void* data() const { return data_; }
  /// Usable size in bytes, as allocated (guard zones not counted).
  std::size_t bytes() const { return bytes_; }
  /// data() as a `T*`.
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
  /// The buffer's data() pointer, passed as a pointer argument.
  Arg(const DeviceBuffer& buffer);  // NOLINT(google-explicit-constructor): reads naturally
  template <typename T, typename = std::enable_if_t<std::is_trivially_copyable<T>::value &&
                                                    !std::is_pointer<T>::value>>
  /// A scalar argument: the bytes of `value` (a trivially copyable non-pointer, <= 16 bytes).
  static Arg scalar(T value) {
    static_assert(sizeof(T) <= 16, "scalar kernel arguments are at most 16 bytes");
    Arg a;
    std::memcpy(a.bytes_, &value, sizeof(T));
    a.size_ = sizeof(T);
    return a;
  }
  /// A raw pointer argument (e.g. nullptr, or into a buffer).
  static Arg pointer(void* p);

  /// The argument's bytes, as the kernel trampoline reads them.
  void* storage() { return bytes_; }
  /// Size of the argument in bytes (a pointer's size for buffers and pointers).
  std::size_t size() const { return size_; }
  /// True for a buffer or pointer() argument, false for a scalar().
  bool is_buffer() const { return is_buffer_; }

 private:
  Arg() = default;
  alignas(16) unsigned char bytes_[16] = {};
  std::size_t size_ = 0;
  bool is_buffer_ = false;
};

/// Launch geometry and limits of one Module::launch().
struct LaunchConfig {
  dim3 grid;                     ///< blocks in the grid (each dimension at least 1)
  dim3 block;                    ///< threads per block (at most 1024, z <= 64)
  std::size_t dynamic_smem = 0;  ///< bytes of dynamic (`extern __shared__`) shared memory
  double timeout_s = 5.0;        ///< wall-clock limit in seconds; the launch stops after it
};

/// Shared-memory traffic of one access in the source: one line and column (all instructions of
/// that access with the same kind and width; a line holding two accesses has two).
struct LineStats {
  std::string file;    ///< source file of the access
  int line = 0;        ///< 1-based source line (0 when unknown)
  int column = 0;      ///< of the access in its line (clang's debug info; 0 when unknown)
  std::string source;  ///< the line's text, trimmed
  bankmodel::Op op = bankmodel::Op::kLoad;  ///< load, store or atomic
  int bytes = 0;                            ///< access width in bytes
  std::string variable;                     ///< the shared variable accessed (first seen)
  std::uint32_t variable_offset = 0;  ///< its byte offset, the origin of `worst`'s lane offsets
  std::uint64_t requests = 0;         ///< warp-level requests, summed over the launch
  std::uint64_t wavefronts = 0;       ///< wavefronts they took (bankmodel::Summary), summed
  std::uint64_t ideal = 0;            ///< their conflict-free minimum, summed
  bankmodel::Request worst{bankmodel::Op::kLoad, 4};  ///< its request with the most excess
  /// Average wavefronts per request (0 when there is none).
  double wavefronts_per_request() const {
    return requests == 0 ? 0.0 : static_cast<double>(wavefronts) / static_cast<double>(requests);
  }
  /// Average ideal wavefronts per request (0 when there is none).
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
  std::string file;                         ///< source file of the access
  int line = 0;                             ///< 1-based source line (0 when unknown)
  int column = 0;                           ///< of the access in its line (0 when unknown)
  std::string source;                       ///< the line's text, trimmed
  bankmodel::Op op = bankmodel::Op::kLoad;  ///< kLoad or kStore
  int bytes = 0;                            ///< access width in bytes
  std::uint64_t requests = 0;               ///< warp-level requests, summed over the launch
  std::uint64_t sectors = 0;                ///< 32-byte sectors they touched, summed
  std::uint64_t ideal = 0;  ///< sectors if each request's bytes were contiguous and aligned
  std::uint64_t lines = 0;  ///< distinct 128-byte lines, summed over requests
  std::uint64_t fresh = 0;  ///< loads: sectors the warp had not loaded since its last barrier
  /// Average sectors per request (0 when there is none).
  double sectors_per_request() const {
    return requests == 0 ? 0.0 : static_cast<double>(sectors) / static_cast<double>(requests);
  }
};

/// A problem found in a launch.
struct Problem {
  std::string kind;  ///< race, out_of_bounds, misaligned, uninitialized_read, barrier_divergence,
                     ///< same_value_write (warning), timeout, crash
  bool warning = false;           ///< a warning, not an error (see LaunchReport::error_count())
  std::string file;               ///< source file where it happened
  int line = 0;                   ///< 1-based source line (0 when unknown)
  int other_line = 0;             ///< the other access of a race / the other barrier (0 if none)
  std::string variable;           ///< the shared variable involved, empty if none
  uint3 block{0, 0, 0};           ///< block of the (first) thread involved
  uint3 thread{0, 0, 0};          ///< thread index of the (first) thread involved
  bool has_other_thread = false;  ///< other_thread is meaningful
  uint3 other_thread{0, 0, 0};    ///< the other thread of a race or divergent barrier
  std::string message;            ///< what happened, in words
  std::uint64_t count = 1;        ///< how many times it happened (same kind and lines)
  /// "column.cu:42: race: ... (block (0,0,0), threads (1,0,0) and (0,0,0); also line 40)"
  std::string to_string() const;
};

/// Everything one Module::launch() found: per-access statistics, problems, totals.
struct LaunchReport {
  std::string kernel;                         ///< the kernel launched, as named to launch()
  LaunchConfig config;                        ///< the configuration it ran with
  std::vector<LineStats> lines;               ///< sorted by line, then loads before stores
  std::vector<GlobalLineStats> global_lines;  ///< device-buffer accesses, sorted the same way
  bool global_sectors_partial = false;        ///< very long global loops were counted in part
  std::vector<Problem> problems;              ///< problems found, in the order first seen
  bool completed = true;                      ///< false when the launch stopped early
  std::string abort_reason;  ///< why it stopped early (timeout, ...); empty otherwise
  std::uint64_t traced_shared_accesses = 0;  ///< shared-memory accesses traced (all threads)
  /// Whose access widths the counts use, in words ("nvcc 13.0 SASS for sm_90 (...)" or
  /// "clang's (...why...)").
  std::string widths;
  bool nvcc_widths = false;         ///< the counts use nvcc's widths
  std::uint64_t regrouped = 0;      ///< requests merged or split into nvcc's widths
  std::uint64_t warp_shuffles = 0;  ///< warp shuffle instructions executed (one per warp)
  /// Counted with clang's widths, and some warp made two accesses nvcc could merge into one
  /// wider instruction (RunResult::mergeable): nvcc's widths could change the counts.
  bool mergeable = false;
  /// The kernel ran cut into regions at its barriers (a call per thread and barrier), not with a
  /// fiber per thread: same counts and problems, faster on large blocks.
  bool regions = false;
  std::uint64_t threads = 0;  ///< CUDA threads run, over all blocks run
  double seconds = 0.0;       ///< wall-clock time of the run

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
  /// Unloads the compiled shared object (if it was loaded).
  ~Module();
  /// Takes over the other module (defaulted move).
  Module(Module&&) noexcept;
  /// Takes over the other module (defaulted move).
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
