// grader/judge.hpp - grading one exercise of one submission: build, correctness on several
// sizes with a secret seed and poisoned outputs, problems, conflicts, speed, anti-bypass. The
// judge computes every verdict itself from the validated reports a Backend returns; each gate is
// one small function of grader/src/gates.cpp, listed in one table.
/// \file
/// Grading one exercise of one submission: the gates, their verdicts and scores.
#pragma once

#include <condition_variable>
#include <filesystem>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "grader/backend.hpp"
#include "grader/gpu_gates.hpp"

/// The autograder: submission policy, sandbox, backends, the judge and its reports.
namespace grader {

/// The gates, in the order they are judged and shown. correct and no_problems are preconditions
/// of the gates after them, and uses_shared of conflicts and speed: a kernel that bypasses the
/// shared-memory path earns neither its conflict-freedom nor its speed.
enum class GateId { kBuilds, kCorrect, kNoProblems, kUsesShared, kConflicts, kSpeed };

/// "builds", "correct", "no_problems", "conflicts", "speed", "uses_shared".
const char* gate_name(GateId id);

/// The points `spec` gives gate `id`.
int gate_points(const ExerciseSpec& spec, GateId id);

/// One gate of one exercise.
struct Gate {
  GateId id = GateId::kBuilds;  ///< which gate
  std::string name;             ///< gate_name(id)
  int score = 0;                ///< max_score when passed, else 0
  int max_score = 0;            ///< the points the exercise gives this gate
  bool passed = false;          ///< the gate passed
  bool skipped = false;         ///< not evaluated (an earlier gate failed, or not applicable)
  std::string reason;           ///< one line: why it failed / what it measured
  std::string detail;  ///< more (compiler output, bank diagram) for VERBOSE and results.json
};

/// The verdict on one exercise of one submission: every gate, in order, and the table's figures.
struct ExerciseResult {
  const ExerciseSpec* spec = nullptr;  ///< the exercise graded
  std::string mode;                    ///< the backend's name: cpu / gpu
  bool timed = false;       ///< the speed gate timed kernels (else: the bank model's ratio)
  std::vector<Gate> gates;  ///< its gates in GateId order (host exercises: builds, correct)
  double seconds = 0.0;     ///< wall-clock time grading took
  /// Figures for the table: the conflicts gate's worst access ("32-way at line 27", "none
  /// (baseline 32-way)") and the speed-up.
  std::string conflicts_summary;
  std::string speedup_summary;  ///< the speed gate's summary, "-" when it has none
  /// Labels of the sizes drawn from the secret seed ("n=19"): platforms hide them until the
  /// due date (a student who saw them could special-case them).
  std::vector<std::string> secret_sizes;
  /// The student's kernel time at the timed size, ms (GPU mode; -1 otherwise): leaderboards.
  double kernel_ms = -1.0;
  /// Where the time went, in order: each step's name and wall-clock seconds ("banksim (CPU)",
  /// "GPU: ncu", "GPU: baseline", "GPU: timing and memcheck"); a GPU step's seconds include its
  /// wait for the GPU, also given as "... waiting for the GPU".
  std::vector<std::pair<std::string, double>> steps;
  /// Sum of the gates' scores.
  int score() const;
  /// Sum of the gates' max_score.
  int max_score() const;
  /// The gate called `name` (see gate_name()), or nullptr.
  const Gate* gate(const std::string& name) const;
};

/// The baseline's evidence, which does not depend on the student: its counted run at sizes[0]
/// and, on a GPU, its time and output at the timed size (the timed size's inputs are drawn from a
/// fixed seed when a cache is used, so that every student is compared with one baseline run).
struct BaselineEvidence {
  WorkerOutcome counted;   ///< at sizes[0]: banksim's counts, or ncu's counters
  double timed_ms = -1.0;  ///< its median time at gpu_timing_size (ms); -1 in CPU mode
  Buffers timed_output;    ///< its outputs at gpu_timing_size
};

/// One grading run's baselines, keyed by content (the baseline's file, the backend, the GPU, the
/// size, the inputs' seed): each exercise's baseline is run, timed and profiled once per grader
/// run and GPU, however many students are graded. Passed in (JudgeOptions::baselines) by whoever
/// grades a class; thread-safe.
///
/// With a folder (GPU mode: beside the grader's build), entries are also kept on disk, one file
/// per key, so that the next grading run on this machine starts with them. The folder is the
/// grader's own (no student process can write it); an entry is read back only when the whole
/// key it was written for matches, and a file that does not parse is ignored (run again).
class BaselineCache {
 public:
  /// A cache in memory only (CPU mode, tests).
  BaselineCache() = default;
  /// A cache kept in memory and in `dir` (created when the first entry is written).
  explicit BaselineCache(std::filesystem::path dir) : dir_(std::move(dir)) {}
  /// The entry for `key` (from memory, else from the folder), or nullptr.
  std::shared_ptr<const BaselineEvidence> find(const std::string& key) const;
  /// The entry for `key`, or nullptr with `key` claimed by this caller, who runs the baseline
  /// and then keeps its entry with put() or gives up the claim with release(). A caller that asks
  /// for a claimed key waits for the claim to end: students graded at the same time run each
  /// baseline once, not once each.
  std::shared_ptr<const BaselineEvidence> find_or_claim(const std::string& key);
  /// Ends this caller's claim on `key` without an entry (the next caller runs the baseline).
  void release(const std::string& key);
  /// Keeps `e` as the entry for `key` (the first entry for a key stays), in the folder too; ends
  /// a claim on `key`.
  void put(const std::string& key, BaselineEvidence e);
  /// Entries held in memory (tests: the baseline ran once).
  std::size_t size() const {
    const std::lock_guard<std::mutex> lock(mutex_);
    return entries_.size();
  }
  /// Entries read back from the folder in this run (the log says so).
  std::size_t from_disk() const {
    const std::lock_guard<std::mutex> lock(mutex_);
    return from_disk_;
  }

 private:
  std::filesystem::path file_for(const std::string& key) const;
  std::filesystem::path dir_;
  mutable std::mutex mutex_;
  mutable std::size_t from_disk_ = 0;
  mutable std::map<std::string, std::shared_ptr<const BaselineEvidence>> entries_;
  std::set<std::string> claimed_;      ///< keys whose baseline runs now
  std::condition_variable claim_end_;  ///< a claim ended
};

/// How grade_exercise() grades.
struct JudgeOptions {
  std::uint64_t seed = 0;          ///< 0: a fresh secret seed from std::random_device
  bool verbose = false;            ///< add bank diagrams of the worst line
  std::filesystem::path work_dir;  ///< scratch space for worker requests
  /// Keep the large inputs (8 MiB and over: the GPU's timed size, up to 512 MiB an exercise)
  /// in work_dir after the exercise is graded; by default they go, so that a class's work
  /// folders do not fill the disk (about 1.6 GB per student for exercises 01-08).
  bool keep_inputs = false;
  /// How messages name the submission folder: the relative path the user gave ("exercises",
  /// "solutions"), so that a file reads "exercises/04-padding-transpose/transpose.cu:27"; empty
  /// (a class, an upload, an absolute path): files are named inside the submission,
  /// "04-padding-transpose/transpose.cu:27".
  std::filesystem::path shown_submission;
  /// Hybrid GPU mode: the CPU backend (banksim). When set and the grading backend times kernels,
  /// the student's file runs under banksim first at every size (correctness, races, bounds,
  /// uninitialised shared reads, barriers: everything CPU mode checks), and the GPU gives what
  /// only it can: the output and time at the timed size, ncu's counters, memcheck at the timed
  /// size. A problem either finds fails the gate, named with its source. nullptr: the GPU alone.
  const Backend* checker = nullptr;
  /// Baselines shared between the exercises and students of one grading run; nullptr: none
  /// kept (each exercise runs its baseline).
  BaselineCache* baselines = nullptr;
  /// The GPU gate table's row to grade with (grader/gpu_gates.hpp); nullptr: the registry's row
  /// for the GPU's name, else the cost model.
  const GateRow* gate_row = nullptr;
};

/// One timing of a kernel at the exercise's timed size (its inputs from a seed fixed by the
/// exercise): the worker's median of 15 CUDA-event timings, and the exercise's ceiling
/// (cudaMemcpy, cuBLAS SGEMM) timed in the same process when it has one.
struct KernelTiming {
  double ms = -1.0;          ///< the kernel's median time (ms); -1 when it was not timed
  double ceiling_ms = -1.0;  ///< the ceiling's median time (ms); -1 when the exercise has none
  std::string error;         ///< why there is no time: the build's or the run's message
};

/// Times `kernel` of `file` (the baseline, a reference solution) on `backend`, working in `dir`;
/// `make calibrate` runs this for the baseline and the reference of each exercise.
KernelTiming time_at_timed_size(const ExerciseSpec& spec, const std::filesystem::path& file,
                                const std::string& kernel, const Backend& backend,
                                const std::filesystem::path& dir);

/// Runs the baseline of `spec` into options.baselines (its counters at sizes[0] and, where the
/// backend times, its time and outputs at the timed size), unless it is there or another caller
/// runs it; nothing without a cache or for a host exercise. A class graded on a GPU does this
/// for every exercise when it starts, beside its first students, so that no student waits for
/// a baseline queued behind the other students' steps.
void warm_baseline(const ExerciseSpec& spec, const Backend& backend, const JudgeOptions& options);

/// Grades `spec` for the submission folder `submission` (same layout as exercises/).
ExerciseResult grade_exercise(const ExerciseSpec& spec, const std::filesystem::path& submission,
                              const Backend& backend, const JudgeOptions& options);

}  // namespace grader
