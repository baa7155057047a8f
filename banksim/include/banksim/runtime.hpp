// banksim/runtime.hpp - the emulator's engine: runs one kernel launch block by block, every CUDA
// thread as a fiber, traces every shared-memory access (through the AddressSanitizer callbacks
// the kernel is compiled with), groups them into warp requests, applies the bank model and
// finds races, out-of-bounds and uninitialised accesses and divergent barriers.
//
// It knows nothing of files or grading: Module (banksim.hpp) compiles a .cu file and calls
// run_kernel() with the module's shared-memory layout; results come back with raw program
// counters that Module turns into source lines.
/// \file
/// The emulator's engine: runs one kernel launch on the CPU, traces its accesses and finds
/// problems.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "bankmodel/bank_model.hpp"
#include "banksim/cuda_types.hpp"
#include "banksim/kernel_entry.hpp"

/// The emulator's engine, below Module: runs launches and reports raw program counters.
namespace banksim::rt {

/// A block-shared variable of the module, by offset in the module's shared arena.
struct SharedVar {
  std::string name;          ///< short name ("tile"), or "dynamic shared memory"
  std::string qualified;     ///< demangled full name ("transpose(float*, ...)::tile")
  std::uint32_t offset = 0;  ///< byte offset of the variable from the arena's start
  std::uint32_t size = 0;    ///< its size in bytes (its symbol's size)
  bool dynamic = false;      ///< the extern __shared__ area: its usable size is the launch's smem
};

/// A kernel cut into regions at its barriers (banksim/pass/regions.cpp): run without fibers.
struct RegionKernel {
  const void* function = nullptr;  ///< the kernel function (KernelEntry::function)
  std::uint64_t frame_bytes = 0;   ///< each thread's frame: its locals and region number
  /// Whether a thread may stop inside a loop that keeps a loop epoch (regions.cpp); when not,
  /// every thread returns with the epoch it started with (0), and the scheduler neither saves
  /// nor restores it per thread.
  bool loop_epochs = true;
};

/// Where the module's shared memory is: one contiguous arena of variables and red zones.
struct ModuleLayout {
  std::uintptr_t arena_lo = 0;               ///< address of the arena in the loaded module
  std::uint32_t arena_size = 0;              ///< its size in bytes
  std::vector<SharedVar> vars;               ///< the module's shared variables (red zones left out)
  std::vector<RegionKernel> region_kernels;  ///< its kernels cut into regions
};

/// Per-instruction statistics (one program counter, one piece of a split access).
struct SiteStats {
  std::uint64_t pc = 0;   ///< program counter of the instruction
  std::uint16_t sub = 0;  ///< piece index when one access was split (memcpy, misaligned)
  bankmodel::Op op = bankmodel::Op::kLoad;  ///< load, store or atomic
  int bytes = 0;                            ///< access width in bytes
  int var = -1;                             ///< index in ModuleLayout::vars of the first access
  std::uint64_t requests = 0;               ///< warp-level requests
  std::uint64_t wavefronts = 0;             ///< wavefronts they took, summed
  std::uint64_t ideal = 0;                  ///< their conflict-free minimum, summed
  int worst_excess = -1;                    ///< excess of `worst` (-1 before the first request)
  bankmodel::Request worst{bankmodel::Op::kLoad, 4};  ///< the request with most excess
};

/// Per-instruction global-memory statistics: warp requests to device buffers and the 32-byte
/// sectors they touch (what the GPU's L1 asks of L2; ncu's "L2 Theoretical Sectors Global").
struct GlobalSiteStats {
  std::uint64_t pc = 0;                     ///< program counter of the instruction
  bankmodel::Op op = bankmodel::Op::kLoad;  ///< kLoad or kStore (atomics count as stores)
  int bytes = 0;                            ///< access width in bytes
  std::uint64_t requests = 0;               ///< warp-level requests
  std::uint64_t sectors = 0;                ///< 32-byte sectors they touched, summed
  std::uint64_t ideal = 0;  ///< sectors if the active lanes' bytes were contiguous and aligned
  std::uint64_t lines = 0;  ///< distinct 128-byte lines per request (the L1's wavefronts)
  /// Sectors no earlier load of the same warp touched since its last barrier (loads; what an L1
  /// that keeps them would fetch from L2), all sectors for stores.
  std::uint64_t fresh = 0;
};

/// One of a race's two accesses: a read or a write (none: the problem is not a pair of accesses).
enum class Access : std::uint8_t { kNone, kRead, kWrite };

/// A problem found while running, before symbolisation.
struct RawProblem {
  std::string kind;            ///< race, out_of_bounds, uninitialized_read, barrier_divergence, ...
  bool warning = false;        ///< a warning, not an error
  std::uint64_t pc = 0;        ///< program counter of the access or barrier
  std::uint64_t other_pc = 0;  ///< the other access of a race, the other barrier
  uint3 block{0, 0, 0};        ///< block of the thread involved
  uint3 thread{0, 0, 0};       ///< thread index of the thread involved
  uint3 other_thread{0, 0, 0};    ///< the other thread, when has_other_thread
  bool has_other_thread = false;  ///< other_thread is meaningful
  int var = -1;                   ///< index in ModuleLayout::vars, -1 if none
  std::string message;            ///< what happened, in words
  std::uint64_t count = 1;        ///< occurrences (same kind, pc and other_pc)
  /// Races and reads before another thread's write: what the thread at pc and the other thread
  /// at other_pc did, and which came first. Module words the message with their source lines in
  /// that order (a write-after-read is told read first).
  Access access = Access::kNone;
  Access other_access = Access::kNone;  ///< what the other thread did
  bool other_first = true;              ///< the other thread's access happened first
  std::string target;  ///< what was accessed, for the message: "`tile`" or "`tile`, byte 32"
  /// barrier_divergence: the threads that did not wait had finished the kernel (an early return,
  /// or a barrier inside a branch they skipped: Module tells which from the source).
  bool others_finished = false;
  bool two_barriers = false;   ///< barrier_divergence: threads wait at pc and at other_pc
  unsigned reached = 0;        ///< barrier_divergence with others_finished: threads that waited
  unsigned block_threads = 0;  ///< and the block's threads
};

/// How one program counter's accesses may be regrouped (WidthPlan).
struct WidthRule {
  /// Accesses whose rules share a non-zero group (a source line) may merge into one request;
  /// 0: keep the widths as traced.
  std::uint32_t group = 0;
  std::uint8_t load = 0;   ///< widths of the other compiler's loads there (bit k: 2^k bytes)
  std::uint8_t store = 0;  ///< widths of its stores there
  /// Widths of its global loads and stores there: not regrouped, only asked whether the other
  /// compiler made a misaligned access wide at all (clang moves a float3's x and y as 8 bytes).
  std::uint8_t global_load = 0;
  std::uint8_t global_store = 0;  ///< as global_load, for stores
  /// 1: the other compiler's atomic there adds a per-lane value (ATOMS.ADD): lanes on one word
  /// serialise (a wavefront each), not counted once as for a constant increment.
  std::uint8_t atomic_add = 0;
  /// The statement right after this one (its group) and its shared widths: nvcc merges two
  /// 4-byte accesses of consecutive statements (`a[i] = x;` then `a[i + 1] = y;`) into one
  /// 8-byte instruction at one of their lines, so such pairs may merge across the two groups.
  std::uint32_t next_group = 0;
  std::uint8_t next_load = 0;   ///< widths of the next statement's loads (as `load`)
  std::uint8_t next_store = 0;  ///< widths of the next statement's stores
};

/// The widths another compiler (nvcc, for the GPU) gives the traced accesses: the engine
/// regroups each warp's shared requests into those widths before the bank model sees them.
/// Consecutive requests of one group whose lanes each continue the previous request by its
/// width merge into one request of a wider width the group uses, when every lane is aligned
/// to it; a request wider than every width of its group is split. Atomics are kept as traced.
class WidthPlan {
 public:
  /// Virtual: plans are used through WidthPlan pointers.
  virtual ~WidthPlan() = default;
  /// The rules of `pcs` (program counters of traced accesses, asked once per launch each), one
  /// per pc, in the same order.
  virtual std::vector<WidthRule> rules(const std::vector<std::uint64_t>& pcs) const = 0;
  /// The program counters of the module's traced accesses, where known (asked once per launch,
  /// before any thread runs, so that a thread never waits on rules()); none by default.
  virtual std::vector<std::uint64_t> call_sites() const { return {}; }
};

/// Geometry and limits of one run_kernel() (LaunchConfig, already validated by Module).
struct RunOptions {
  dim3 grid;                          ///< blocks in the grid
  dim3 block;                         ///< threads per block
  std::size_t dynamic_smem = 0;       ///< bytes of dynamic shared memory
  double timeout_s = 5.0;             ///< wall-clock limit in seconds
  const WidthPlan* widths = nullptr;  ///< regroup into another compiler's widths (null: none)
};

/// What one run_kernel() found, with raw program counters.
struct RunResult {
  std::vector<SiteStats> sites;               ///< shared-memory statistics per instruction
  std::vector<GlobalSiteStats> global_sites;  ///< global-memory statistics per instruction
  std::vector<RawProblem> problems;           ///< problems, in the order first seen
  bool completed = true;                      ///< false when the launch stopped early
  std::string abort_reason;         ///< why the launch stopped early (timeout, wild pointer, ...)
  std::uint64_t traced_shared = 0;  ///< shared-memory accesses traced
  std::uint64_t regrouped = 0;      ///< requests the WidthPlan merged or split
  /// Warp shuffle instructions executed (__shfl*_sync): one per warp and call site each time the
  /// warp's lanes meet there, as the GPU issues one SHFL per warp.
  std::uint64_t warp_shuffles = 0;
  /// Without a WidthPlan: some warp made two requests of one op and width where the second
  /// continues the first in every lane, aligned to twice the width (what nvcc may merge into one
  /// wider instruction), or an access clang made wider than the alignment it knew was misaligned
  /// (nvcc may split it, as a float3's x and y): nvcc's widths could change the counts or the
  /// problems.
  bool mergeable = false;
  bool global_sectors_partial = false;  ///< some global accesses were not counted (see engine)
  bool regions = false;                 ///< run cut into regions (no fibers)
  std::uint64_t threads = 0;            ///< CUDA threads run, over all blocks run
  double seconds = 0.0;                 ///< wall-clock time of the run
};

/// Runs one launch. Not reentrant: one launch at a time per process.
RunResult run_kernel(const ModuleLayout& layout, const KernelEntry& entry, void** args,
                     const RunOptions& options);

/// Device memory: a zero-filled buffer with guard zones on both sides, registered so that
/// kernel accesses outside every buffer are reported instead of crashing.
void* device_alloc(std::size_t bytes);
/// Frees a buffer from device_alloc(); null and unknown pointers are ignored.
void device_free(void* pointer);

/// Largest dynamic shared memory a launch may ask for (227 KiB, as on sm_90).
inline constexpr std::size_t kMaxDynamicSmem = 232448;
/// Threads per block, at most (as on every GPU since sm_20).
inline constexpr unsigned kMaxThreadsPerBlock = 1024;

/// Called when the process must stop at once (hard timeout, crash), with a one-line reason,
/// after the message is printed and before _exit: lets the CLI write its JSON report.
using EmergencyHandler = void (*)(const char* kind, const char* message, std::uint64_t pc);
/// Installs the handler emergency stops call (null: none).
void set_emergency_handler(EmergencyHandler handler);

/// The program counter of the last traced access (0 if none): for crash and hang messages.
std::uint64_t last_pc();

/// How the launch in progress runs its kernel: "regions" (cut at its barriers), "fibers", or ""
/// when no launch is running (for the emergency report, as RunResult::regions for a whole one).
const char* current_execution();

}  // namespace banksim::rt
