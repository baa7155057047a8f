// grader/spec.hpp - what an exercise is, for the grader: its files, kernel, buffers and
// arguments, sizes, launch configuration, input generator, CPU reference, the conflicting
// baseline it is measured against, and its gates with thresholds and points.
//
// exercises() is the one table that the grader, the tests, the skeleton generator and the docs
// iterate over (STYLE rule 3).
#pragma once

#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace grader {

/// Element type of a buffer (float4 buffers are kF32 with 4 floats per element).
enum class Elem { kF32, kF64, kI32 };
std::size_t elem_bytes(Elem e);

/// A problem size. Unused fields are 0.
struct Size {
  std::string label;  ///< shown in reasons: "n=70"
  long long n = 0;
  long long m = 0;
  long long k = 0;
};

struct BufferSpec {
  std::string name;  ///< the kernel parameter's name, for messages
  bool output = false;
  Elem elem = Elem::kF32;
  std::function<std::size_t(const Size&)> count;  ///< scalars of type elem
};

/// A kernel argument: a buffer (index into buffers) or an int computed from the size.
struct ArgSpec {
  int buffer = -1;
  std::function<long long(const Size&)> scalar;
};

struct Launch {
  unsigned grid[3] = {1, 1, 1};
  unsigned block[3] = {1, 1, 1};
  std::size_t smem = 0;
};

/// Raw contents of every buffer of one run, in BufferSpec order.
using Buffers = std::vector<std::vector<unsigned char>>;

/// Points of each gate (an exercise is worth their sum, the same in CPU and GPU mode).
struct Points {
  int builds = 10;
  int correct = 40;
  int no_problems = 15;
  int conflicts = 20;
  int speed = 10;
  int uses_shared = 5;
  int total() const { return builds + correct + no_problems + conflicts + speed + uses_shared; }
};

struct ExerciseSpec {
  enum class Kind { kKernel, kHost };
  std::string id;     ///< "04"
  std::string slug;   ///< "04-padding-transpose": the folder in lessons/, exercises/, solutions/
  std::string title;  ///< "The padding fix: tiled transpose"
  Kind kind = Kind::kKernel;
  std::string file;             ///< the student's file, relative to the exercise folder
  std::string kernel;           ///< kernel (or host function) under test
  std::string baseline_file;    ///< the conflicting baseline, relative to the repo root
  std::string baseline_kernel;  ///< same signature as `kernel`
  std::vector<BufferSpec> buffers;
  std::vector<ArgSpec> args;
  /// Sizes checked for correctness; sizes[0] is also the one measured for conflicts and speed.
  std::vector<Size> sizes;
  /// GPU mode only: a size large enough to fill the GPU, at which baseline and solution are timed
  /// against each other (outputs not compared: its CPU reference would be too slow).
  Size gpu_timing_size;
  std::function<Launch(const Size&)> launch;
  /// Fills the input buffers (outputs are poisoned by the grader).
  std::function<void(const Size&, Buffers&, std::mt19937_64&)> make_inputs;
  /// Fills the expected output buffers from the inputs.
  std::function<void(const Size&, Buffers&)> reference;
  double tolerance_abs = 0.0;  ///< |got - want| <= abs + rel * |want|
  double tolerance_rel = 0.0;
  /// CPU mode's speed gate: baseline wavefronts / student wavefronts (bank model) at sizes[0].
  double cpu_min_wavefront_ratio = 1.0;
  /// GPU mode's speed gate: baseline time / student time, median of many runs (see
  /// data/h200-measurements.md and the grader's calibration runs).
  double gpu_min_speedup = 1.0;
  /// Anti-bypass: student shared load and store requests >= this fraction of the baseline's.
  double min_shared_fraction = 0.25;
  /// What to try when the conflict gate fails.
  std::string conflict_hint;
  Points points;
  /// Host exercises: how many random cases are checked.
  int host_cases = 0;
};

/// Every exercise, in course order.
const std::vector<ExerciseSpec>& exercises();

/// The exercise with this id ("04") or slug ("04-padding-transpose"); nullptr if none.
const ExerciseSpec* find_exercise(const std::string& id_or_slug);

}  // namespace grader
