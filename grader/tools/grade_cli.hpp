// grade_cli.hpp - the parts of the `grade` command (grade_main.cpp is its command line): its
// options, grading one submission, a class (class_grading.cpp, with its gradebook, resume records
// and SLURM array), the course site's generated pages and the hints. Not part of the API.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "grader/backend.hpp"
#include "grader/gpu_gates.hpp"
#include "grader/judge.hpp"
#include "grader/report.hpp"

namespace grade_cli {

namespace fs = std::filesystem;

/// The command line's options, and what one run shares between its exercises and students.
struct Options {
  fs::path submission = "exercises";
  fs::path submissions;
  std::vector<std::string> exercise_ids;
  std::string mode = "auto";
  std::string widths = "auto";
  bool verbose = false;
  bool keep_inputs = false;  ///< --keep-inputs: the timed size's inputs stay in the work folders
  std::string format = "gradescope";
  fs::path out = "build/grade";
  fs::path policy;  ///< --policy: the grading policy file ("" = the course's, if any)
  int jobs = 1;
  std::uint64_t seed = 0;
  bool no_sandbox = false;
  bool require_full = false;
  bool hide_secret_sizes = false;
  std::string isolation = "bwrap";  ///< bwrap, uid (root; containers without namespaces), auto
  std::string scheduler;            ///< "slurm": one array task per student (submit and return)
  std::string isolation_note;       ///< why --isolation auto fell back to uid isolation
  int task = -1;                    ///< a class's K-th student only (a SLURM array task)
  bool merge_only = false;          ///< only write the gradebook from the results there
  bool slurm_wait = false;          ///< wait for the gradebook job (sbatch --wait)
  fs::path gates;                   ///< --gates: the calibration file (default beside bin/)
  bool gpu_only = false;            ///< --gpu-only: GPU mode without banksim's checks first
  // Shared by every exercise and student of this run (set in main).
  const grader::Backend* checker = nullptr;  ///< hybrid GPU mode: banksim on the CPU
  grader::BaselineCache* baselines = nullptr;
  const grader::GateRow* gate_row = nullptr;  ///< the GPU gate table's row graded with
};

/// The folder of this executable.
fs::path exe_dir();
/// The calibration file the grader reads: --gates, else gpu-gates.json beside the grader's bin/.
fs::path gates_file(const Options& o);
/// The exercises selected (--exercise), or all; throws on an unknown id.
std::vector<const grader::ExerciseSpec*> selected(const Options& o);
/// An exercise the grader could not grade: every point lost, with the reason in the build gate.
grader::ExerciseResult not_graded(const grader::ExerciseSpec& spec, const grader::Backend& backend,
                                  const std::string& why);
/// Called as each exercise of a submission is graded, with its seconds (a class's log).
using ExerciseDone = std::function<void(const grader::ExerciseResult&, double seconds)>;
/// Grades the submission folder `dir` (grade_submission.cpp), the exercises from list[first]
/// on, round to the start (a class starts its students on different exercises, so that their
/// builds and GPU steps interleave); results keep the list's order.
grader::SubmissionResult grade_submission(const fs::path& dir, const std::string& name,
                                          const std::vector<const grader::ExerciseSpec*>& list,
                                          const grader::Backend& backend, const Options& o,
                                          const fs::path& work, int jobs = 1,
                                          const fs::path& shown = {}, const ExerciseDone& done = {},
                                          std::size_t first = 0);
/// The judge's options for grading into `work` (grade_submission.cpp).
grader::JudgeOptions judge_options(const Options& o, const fs::path& work, const fs::path& shown);
/// results.json and the other formats asked for, into `out`.
void write_results(const grader::SubmissionResult& r, const fs::path& out, const Options& o);
/// Everything after the command line for grading (and `grade calibrate`): the sandbox's checks,
/// the backend, hybrid GPU mode and the gate row, then one submission or a class (grade_run.cpp).
int run_grading(Options& o, bool calibrate, int calibrate_runs);

// A class (class_grading.cpp).
/// A student's folder name as text: invalid UTF-8 bytes and control characters become \xNN.
std::string display_name(const std::string& raw);
/// Where a student's results go (a safe name, plus a hash for odd ones).
std::string output_name(const std::string& raw);
/// A class's student folders, sorted (SLURM's array task order).
std::vector<fs::path> class_folders(const fs::path& dir);
/// Grades a class: one folder per student, --jobs at a time, resumable; then the gradebook.
int grade_class(const Options& o, const grader::Backend& backend);

// Resume records (resume.cpp).
/// What a result depends on besides the student's files.
std::string grading_key(const Options& o, const std::vector<const grader::ExerciseSpec*>& list);
/// A fingerprint of a student's files and the grading key; never throws.
std::string fingerprint(const fs::path& dir, const std::string& key);
/// The grader's own record of a student's grading, OUT/<student>/.record (JSON), written by the
/// grader after results.json: what a class run resumes from and the gradebook is built from.
struct Record {
  std::string fingerprint;   ///< fingerprint() of the folder graded ("" after a failure: regrade)
  std::string results_hash;  ///< results_hash() of the results.json written with it
  grader::StudentSummary summary;  ///< the typed per-exercise scores
};
/// The record's file in a student's output folder.
fs::path record_file(const fs::path& out);
/// A hash of results.json's text: results are kept on resume only when it still matches.
std::string results_hash(const std::string& results_text);
/// Writes the record (a temporary file renamed over the old one: never half written).
void write_record(const fs::path& out, const Record& r);
/// The record in `out`, or nullopt with `why` said (missing, unreadable, another version).
std::optional<Record> read_record(const fs::path& out, std::string& why);
/// A file's contents, or "".
std::string read_text(const fs::path& p);

// The gradebook (gradebook.cpp).
/// One CSV field per RFC 4180, never a spreadsheet formula.
std::string csv_field(const std::string& v);
/// OUT/gradebook.csv from every student's record (fresh or kept): its typed summary.
void write_gradebook(const Options& o, const std::vector<const grader::ExerciseSpec*>& list,
                     const std::vector<fs::path>& students);

// SLURM (slurm.cpp).
/// SCHEDULER=slurm: a job array, one task per student, then the gradebook job.
int submit_slurm(const Options& o);

// The course site's generated pages (doc_pages.cpp) and the hints (hints.cpp).
void write_doc_pages(const fs::path& dir, bool instructor);
/// What each level of hint gives ("a nudge", ...; hints.cpp).
extern const char* const kHintNames[3];
/// `grade hint NN --level K`: the exercise's first K hints; 2 for an unknown exercise.
int print_hints(const std::string& id, int level);

}  // namespace grade_cli
