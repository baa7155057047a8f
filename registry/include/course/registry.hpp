// course/registry.hpp - the one place where the facts about the course's kernels are written:
// every exercise (its files, the student's kernel, the conflicting baseline, the solution, extra
// variants, buffers and arguments, sizes, launch geometry, input generator, CPU reference and
// the thresholds of its gates) and every lesson demo that the benchmarks time.
//
// Everything else iterates this table: the grader (grader/), the skeleton generator, the docs
// pages, the tests, the GPU benchmarks (gpu/course_bench.cu, gpu/bench_gpu.cu), the fidelity
// script (scripts/fidelity.sh via `course-registry banksim-runs`) and the generated kernel-pointer
// table (`course-registry kernel-table`). The library is plain C++17 with no dependencies, so nvcc
// compiles it on a bare GPU machine too. Adding an exercise: see CONTRIBUTING.md.
/// \file
/// The course registry: every exercise (files, kernels, workloads, gate thresholds) and lesson
/// demo.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

/// The course registry: the facts about every exercise and kernel, and their checks.
namespace course {

/// Element type of a buffer (float4 buffers are kF32 with 4 floats per element).
enum class Elem { kF32, kF64, kI32 };
/// Bytes of one scalar of `e`.
std::size_t elem_bytes(Elem e);

/// A problem size. Unused fields are 0; each workload says what n, m and k mean for it.
struct Size {
  std::string label;  ///< shown in reasons and tables: "n=70", "m=n=k=128"
  long long n = 0;    ///< size parameter n (0: unused)
  long long m = 0;    ///< size parameter m (0: unused)
  long long k = 0;    ///< size parameter k (0: unused)
};

/// A kernel parameter that is a device buffer.
struct BufferSpec {
  std::string name;                               ///< the parameter's name, for messages
  bool output = false;                            ///< written by the kernel (poisoned before)
  Elem elem = Elem::kF32;                         ///< scalar type
  std::function<std::size_t(const Size&)> count;  ///< scalars of type elem
  /// For messages only: a matrix's row length in elements (out[i] is row i / len, column
  /// i % len); empty for a flat array.
  std::function<std::size_t(const Size&)> row_length;
  /// For messages only: scalars per element as the kernel indexes the buffer (float4: 4, so
  /// scalar 21 is out[5].y).
  int vector_width = 1;
};

/// A kernel argument: a buffer (index into Workload::buffers) or an int computed from the size.
struct ArgSpec {
  int buffer = -1;                               ///< >= 0: this buffer's device pointer
  std::function<long long(const Size&)> scalar;  ///< otherwise: the int passed
};

/// Launch geometry of one kernel call.
struct Launch {
  unsigned grid[3] = {1, 1, 1};   ///< blocks in x, y, z
  unsigned block[3] = {1, 1, 1};  ///< threads per block in x, y, z
  std::size_t smem = 0;           ///< dynamic shared memory in bytes
};

/// Raw contents of every buffer of one run, in BufferSpec order.
using Buffers = std::vector<std::vector<unsigned char>>;

/// A kernel of one of the repository's files.
struct KernelRef {
  std::string file;    ///< relative to the repository root: "lessons/04-padding-transpose/..."
  std::string kernel;  ///< its name, or a template instance: "transpose_padded_tuned<64, 8>"
};

/// What a benchmark reports for one launch: bytes moved through device memory (GB/s against
/// cudaMemcpy), floating-point operations (TFLOP/s against cuBLAS SGEMM), or bytes read from
/// shared memory (TB/s against 128 B per clock per SM).
enum class Rate { kDeviceBytes, kFlops, kSharedBytes };

/// How a family of kernels with one signature is called and checked.
struct Workload {
  std::vector<BufferSpec> buffers;            ///< device buffers, in parameter order of use
  std::vector<ArgSpec> args;                  ///< the kernel's parameters, in order
  std::function<Launch(const Size&)> launch;  ///< the geometry the kernel requires
  /// Fills the input buffers (outputs are poisoned by whoever runs it).
  std::function<void(const Size&, Buffers&, std::mt19937_64&)> make_inputs;
  /// Fills the expected output buffers from the inputs; empty for demos (nothing to check).
  std::function<void(const Size&, Buffers&)> reference;
  /// "" when the kernels accept this size, else why not (the kernels check it too).
  std::function<std::string(const Size&)> precondition;
  double tolerance_abs = 0.0;               ///< |got - want| <= abs + rel * |want|
  double tolerance_rel = 0.0;               ///< relative tolerance (see tolerance_abs)
  Rate rate = Rate::kDeviceBytes;           ///< what `work` counts
  std::function<double(const Size&)> work;  ///< bytes or flops of one launch
};

/// Another kernel of the same workload: a lesson's step, a tuned version, an alternative fix.
struct Variant {
  std::string name;                           ///< short, for tables: "tuned<64,8>"
  KernelRef kernel;                           ///< where it is
  std::function<Launch(const Size&)> launch;  ///< empty: the workload's geometry
  bool conflict_free = true;                  ///< what banksim must find (tests check it)
};

/// Points of each gate (an exercise is worth their sum, the same in CPU and GPU mode). The
/// defaults put the points where the learning is: correct and no_problems are preconditions (a
/// wrong or racy kernel keeps only its build points, 0 by default), so the untouched skeleton
/// scores 0 and the conflicting baseline the skeleton hands over (its TODO lines deleted) only
/// uses_shared's 10; a correct kernel that keeps the conflict at most 30, a conflict-free one
/// below the speed gate 80, the solution 100. An instructor's policy file changes them
/// (grader/include/grader/grading_policy.hpp).
struct Points {
  int builds = 0;        ///< builds: the file passes the submission policy and compiles
  int correct = 0;       ///< correct: outputs match the reference at every size
  int no_problems = 0;   ///< no_problems: no race, out-of-bounds access or other problem
  int conflicts = 70;    ///< conflicts: no bank-conflicting shared-memory access
  int speed = 20;        ///< speed: fast enough against the reference (Thresholds)
  int uses_shared = 10;  ///< uses_shared: the data flows through shared memory (anti-bypass)
  /// What the exercise is worth: the sum of the gates' points.
  int total() const { return builds + correct + no_problems + conflicts + speed + uses_shared; }
};

/// What GPU mode's speed gate compares the student's time with.
enum class SpeedReference {
  kBaseline,  ///< the exercise's conflicting baseline: baseline ms / student ms
  kMemcpy,    ///< cudaMemcpy device to device of the output's bytes: memcpy ms / student ms
  kSgemm,     ///< cuBLAS SGEMM (pedantic fp32) of the same m, n, k: cuBLAS ms / student ms
};
/// "baseline", "cudaMemcpy" or "cuBLAS SGEMM".
const char* to_string(SpeedReference r);

/// One row of an exercise's GPU gate table: measured on one GPU model.
struct GpuGate {
  std::string gpu;     ///< the device name's prefix as CUDA reports it: "NVIDIA H200"
  double min_ratio;    ///< reference ms / student ms at gpu_timing_size must reach this
  std::string source;  ///< where it comes from: measurements and what the reference reaches
  /// The reference's ratio measured there (the lowest the source cites: baseline or ceiling ms /
  /// reference ms); `make calibrate` keeps min_ratio / measured of another GPU's ratio. 0: none.
  double measured = 0.0;
};

/// Thresholds of the gates, each with where it comes from.
struct Thresholds {
  /// CPU mode's speed gate: the baseline's modelled cost / the student's at sizes[0] (shared
  /// wavefronts and global sectors, grader/src/cost_model.hpp), set so that it mirrors the GPU
  /// gate: the reference's modelled ratio times (GPU threshold / GPU ratio measured).
  /// Counted with nvcc's access widths (banksim reads its SASS), as the GPU runs the kernel.
  double cpu_min_cost_ratio = 1.0;
  /// The same gate when banksim counts clang's widths (no nvcc/nvdisasm): 0 = the same value.
  /// It differs where nvcc merges the reference's accesses (exercise 05's LDS.128/LDS.64).
  double cpu_min_cost_ratio_clang = 0.0;
  /// The CPU gate for counts made with nvcc's widths or clang's.
  double cpu_gate(bool nvcc_widths) const {
    return nvcc_widths || cpu_min_cost_ratio_clang <= 0 ? cpu_min_cost_ratio
                                                        : cpu_min_cost_ratio_clang;
  }
  /// GPU mode's speed gate, timed at gpu_timing_size (median of 15, L2 flushed), against
  /// `reference` run in the same process; one row per GPU model measured. On a GPU without a row
  /// the gate falls back to the cost model on the GPU's own counters, and says so.
  SpeedReference reference = SpeedReference::kBaseline;
  std::vector<GpuGate> gpu;  ///< the GPU speed gate's rows, one per GPU model measured
  /// Anti-bypass: student shared load and store requests >= this fraction of the baseline's.
  double min_shared_fraction = 0.25;
  /// Anti-bypass for the transposes, whose tile exists to make the global stores coalesced: the
  /// student's global store sectors at sizes[0] <= this x the coalesced ideal (a kernel that
  /// writes the transpose straight to global memory, 32 sectors per 4-byte warp store, has 8x).
  /// 0: not judged.
  double max_store_sectors_per_ideal = 0.0;
  /// Anti-bypass for the GEMMs, whose tiles exist so that each operand element is read from
  /// global memory once per block: the student's global load requests at sizes[0] <= this x the
  /// baseline's (an operand read from global memory in the inner loop multiplies them). 0: not
  /// judged.
  double max_load_requests_vs_baseline = 0.0;
  /// The row for a device name, or nullptr.
  const GpuGate* gpu_gate(const std::string& device) const {
    for (const GpuGate& g : gpu) {
      if (!g.gpu.empty() && device.rfind(g.gpu, 0) == 0) return &g;
    }
    return nullptr;
  }
};

/// One exercise: lessons/SLUG/, exercises/SLUG/FILE, solutions/SLUG/FILE.
struct ExerciseSpec {
  /// What the student writes.
  enum class Kind {
    kKernel,  ///< a CUDA kernel, run under banksim or on the GPU
    kHost     ///< a host C++ function (exercise 01), checked against the bank model
  };
  std::string id;       ///< "04"
  std::string slug;     ///< "04-padding-transpose": the folder in lessons/, exercises/, solutions/
  std::string title;    ///< "The padding fix: tiled matrix transpose"
  std::string summary;  ///< for README's course table: "the tiled matrix transpose"
  Kind kind = Kind::kKernel;  ///< kernel or host exercise
  std::string file;           ///< the student's file, relative to the exercise folder
  std::string kernel;         ///< kernel (or extern "C" host function) under test
  KernelRef baseline;         ///< the conflicting kernel the exercise starts from (same signature)
  Workload workload;          ///< buffers, arguments, launch, inputs, reference
  /// Sizes checked for correctness; sizes[0] is also the one measured for conflicts and speed.
  std::vector<Size> sizes;
  /// More sizes drawn with the grader's secret seed (a student cannot learn them in advance):
  /// the judge adds `random_sizes` of them to the correctness runs and checks conflicts there
  /// too. Each satisfies the workload's precondition. Empty: none.
  std::function<Size(std::mt19937_64&)> random_size;
  int random_sizes = 0;  ///< how many sizes random_size draws per grading
  /// GPU mode: a size that fills the GPU, at which baseline and student are timed.
  Size gpu_timing_size;
  /// The benchmarks' size (gpu/course_bench.cu, gpu/bench_gpu.cu); the lessons quote it.
  Size bench_size;
  std::vector<Variant> variants;  ///< more kernels of this workload that the benchmarks time
  Thresholds thresholds;          ///< the gates' thresholds
  std::string conflict_hint;      ///< what to try when the conflict gate fails
  /// Three hints, each giving away more: a nudge, the bank arithmetic, the fix's shape
  /// (`make hint EXERCISE=NN LEVEL=k`, and folded on the exercises page).
  std::vector<std::string> hints;
  Points points;       ///< the gates' points
  int host_cases = 0;  ///< host exercises: how many random cases are checked
  /// CPU mode with the default widths: the reference solution has accesses nvcc merges into
  /// wider instructions (an unrolled tile loop), so a submission is compiled with nvcc's widths
  /// at once instead of first with clang's, which would find that and run it again. Checked
  /// against banksim by the registry tests.
  bool nvcc_widths_expected = false;
  /// Seconds grading the solution takes in CPU mode from a cold cache on 2 shared cores
  /// (`grade --submission solutions --exercise NN --mode cpu`, measurements/platforms/): the
  /// platforms' per-exercise timeouts are 10 times this (platforms/package.py).
  int cpu_grading_seconds = 30;

  /// The reference solution: solutions/SLUG/FILE, `kernel`.
  KernelRef solution() const { return {"solutions/" + slug + "/" + file, kernel}; }
  /// The skeleton students start from: exercises/SLUG/FILE.
  std::string skeleton_file() const { return "exercises/" + slug + "/" + file; }
};

/// A lesson's demo kernel that the benchmarks time (no grading).
struct Demo {
  std::string name;                 ///< "smem-stride"
  std::string lesson;               ///< "03-strides"
  std::vector<Variant> kernels;     ///< the kernels compared
  Workload workload;                ///< how they are called
  std::vector<Size> sizes;          ///< timed sizes (e.g. one per stride)
  std::vector<Size> profile_sizes;  ///< small sizes for Nsight Compute and banksim (one each)
};

/// Every exercise, in course order.
const std::vector<ExerciseSpec>& exercises();

/// The exercise with this id ("04") or slug ("04-padding-transpose"); nullptr if none.
const ExerciseSpec* find_exercise(const std::string& id_or_slug);

/// The lessons' demos that the benchmarks time.
const std::vector<Demo>& demos();

/// Every kernel named by exercises() and demos() (baselines, solutions, variants, demos), each
/// once, in table order: what the generated kernel-pointer table holds.
std::vector<KernelRef> all_kernels();

/// The C identifier the generated table uses for `k`: "k_" + a hash of file and kernel name.
std::string kernel_symbol(const KernelRef& k);

/// The compute capability the course builds for when no GPU says otherwise (the H200's).
inline constexpr const char* kDefaultGpuArch = "90";

/// The nvcc flags that define "what the GPU runs": the GPU grader and benchmarks compile every
/// kernel with them, and CPU mode reads access widths from the SASS they give (so the two agree).
/// `arch` is a compute capability without "sm_" ("90"). Everything that compiles CUDA code for
/// a GPU, or for its SASS, takes its flags from here (scripts through `course-registry export`).
std::vector<std::string> nvcc_flags(const std::string& arch = kDefaultGpuArch);

}  // namespace course
