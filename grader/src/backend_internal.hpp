// backend_internal.hpp - helpers shared by the CPU and GPU backends (not part of the API).
#pragma once

#include <atomic>
#include <filesystem>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "grader/backend.hpp"
#include "grader/protocol.hpp"
#include "grader/sandbox.hpp"

namespace grader::internal {

std::string read_file(const std::filesystem::path& p);
void write_file(const std::filesystem::path& p, const std::vector<unsigned char>& bytes);
/// The folder of the running executable (where grade_worker lives).
std::filesystem::path self_dir();
/// Writes DIR/request.json and the runK_bufJ.in / host_cases.in input files.
void write_inputs(const WorkerJob& job, const std::filesystem::path& dir);
/// Runs argv in a child process (own process group, memory limit, stdout+stderr to DIR/log_name,
/// or to `stdout_file` alone when given), killing it after limits.seconds. With `report` set,
/// the child inherits the write end of a pipe as the fd named by the placeholder "{report_fd}"
/// in argv, and everything it writes there is decoded into out.report against `job`. Fills
/// started, timed_out, exit_status, seconds, output_tail.
void run_child(std::vector<std::string> argv, const std::filesystem::path& dir,
               const Limits& limits, WorkerOutcome& out, const std::string& log_name,
               const WorkerJob* report = nullptr);

/// Runs a worker (argv; "{report_fd}" becomes the report pipe's fd) under `spec`, in the sandbox
/// or not, reading the report pipe while it runs; fills every field of `out`.
void run_worker(std::vector<std::string> argv, SandboxSpec spec, bool sandboxed,
                const WorkerJob& job, WorkerOutcome& out);

/// The word a GPU child waits for before it touches the GPU: it reads its inputs from disk first,
/// while the step waits for the GPU lock, so the lock is held for the GPU's work alone. The
/// child's end of a socket pair replaces "{go_fd}" in argv and joins spec.pass_fds; send_after()
/// runs `ready` (taking the lock) in its own thread and then sends one byte. A child that never
/// reads it loses nothing: the word sits in the socket until the pair is closed. The child may
/// write one byte back when it is done with the GPU (before it sends its outputs): `done` (letting
/// the lock go) runs then, or at join() when the child ended without it.
class GoWord {
 public:
  GoWord(std::vector<std::string>& argv, SandboxSpec& spec);
  ~GoWord();
  GoWord(const GoWord&) = delete;
  GoWord& operator=(const GoWord&) = delete;
  /// Runs `ready` in a thread, then sends the word; then, when `done` is given, waits for the
  /// child's word back and runs `done`.
  void send_after(std::function<void()> ready, std::function<void()> done = {});
  /// Waits for send_after's thread, once the child has ended: the lock is then held as `ready`
  /// took it, or let go by `done`.
  void join();

 private:
  int ours_ = -1, theirs_ = -1;
  std::thread thread_;
};

/// Every mention of `copy` (the path a backend compiled the file under) in what the worker
/// reported (compile messages, problems, sites, its output) becomes `shown`, the name the student
/// knows the file by. Nothing happens when `shown` is empty.
void show_file_as(WorkerOutcome& out, const std::string& copy, const std::string& shown);

/// LD_LIBRARY_PATH, passed into a sandbox with its folders outside /usr bound read-only: the
/// libraries a worker was linked with where an administrator unpacked them (/opt/deps).
void add_loader_paths(SandboxSpec& spec);

/// Host uids of sandboxed steps when the grader runs as root: one per run step, in turn (so that
/// concurrent runs do not share RLIMIT_NPROC), and one shared by compile steps.
constexpr unsigned kFirstSandboxUid = 61000;
constexpr unsigned kSandboxUids = 64;
constexpr unsigned kCompileUid = kFirstSandboxUid + kSandboxUids;
unsigned next_sandbox_uid();
/// Kills what a grader stopped with SIGKILL can leave behind: a sandbox's init (its own pid
/// namespace's pid 1, sleeping) orphaned under a sandbox uid. Only orphans (parent pid 1) are
/// killed, so sandboxes of other graders running at the same time are left alone; killing the
/// init ends its whole namespace. Called once when grading starts.
void sweep_orphaned_sandboxes();

/// The file the GPU worker leaves in its folder when its --go-fd gave no word (a tool between
/// the grader and it did not pass the descriptor on): it then stops before its first CUDA call.
inline constexpr const char* kNoGoWordFile = "no-go-word";

/// A GPU step: runs argv (the worker, or a tool that starts it) under the sandbox spec given.
using GpuStep = std::function<void(const std::vector<std::string>&, const SandboxSpec&)>;

/// Runs `step` with the go word when `passes`: argv gets "--go-fd {go_fd}", `take` (the lock)
/// runs while the step starts, the word follows, and `let_go` runs when the worker answers
/// (it has reset the device) or ends. The wait in `take` is added to the step's wall limit. A step
/// whose worker left `no_go_file` (its tool did not pass the descriptor on, so it stopped before
/// the GPU; a file, which a student's kernel can neither write nor fake by printing) runs again
/// with the lock taken first, and `passes` becomes false: later steps of that tool take it first
/// too.
void run_gated(std::vector<std::string> argv, const SandboxSpec& spec,
               const std::filesystem::path& no_go_file, std::atomic<bool>& passes,
               const std::function<void()>& take, const std::function<void()>& let_go,
               const GpuStep& step);

/// The class log's account of the GPU so far (Backend::usage): how long it was held alone, by
/// sanitizers only and by neither, and the tools whose steps take the lock first because they did
/// not pass the go word on (`lock_first`: their start and report then hold the GPU too, the
/// slower path an instructor should know of).
std::string gpu_usage_line(double alone_seconds, int alone_steps, double shared_seconds,
                           int shared_steps, int gatherings, double idle_seconds,
                           const std::vector<std::string>& lock_first);

/// One profiled launch: its shared-memory instructions (LDS, STS, ATOMS; predicated or not) and
/// its global ones (LDG, STG, with ncu's theoretical sectors).
struct ProfiledLaunch {
  std::vector<protocol::Site> sites;
  std::vector<protocol::GlobalSite> global_sites;
  std::uint64_t warp_shuffles = 0;  ///< SHFL instructions executed
};
/// How ncu is asked for the source counters: the metrics by name (the lighter run), or the
/// SourceCounters section (an ncu that does not know a metric's name).
enum class NcuCounters { kMetrics, kSection };
/// ncu's command line over the worker: the source counters only, of `kernel` only (its base
/// name; "" profiles every kernel), `launches` launches (one per size), the report written to
/// REPORT.ncu-rep.
std::vector<std::string> ncu_argv(const std::string& kernel, std::size_t launches,
                                  const std::string& report, const std::string& worker,
                                  const std::string& dir,
                                  NcuCounters counters = NcuCounters::kMetrics);
/// Why ncu gave no source page: its ==ERROR== line, else the exit status and the log's tail.
std::string ncu_failure(const std::string& log, int exit_status);
/// Per kernel launch (in order), what ncu's source page says (`ncu -i R --page source --csv
/// --print-source sass`).
std::vector<ProfiledLaunch> parse_source_page(const std::string& csv, const std::string& file);
/// nvcc's first error in `log` as "FILE:LINE: error: ...", FILE being `shown` where nvcc names
/// `copy` (the copy of the student's file it compiled) and a file's name otherwise; "" when the
/// log has no error line.
std::string nvcc_error(const std::string& log, const std::string& copy, const std::string& shown);
/// compute-sanitizer's findings in one tool's log as report issues (kind, line, message).
std::vector<protocol::Issue> sanitizer_issues(const std::string& text, const std::string& tool);
/// compute-sanitizer's command line for one tool over the worker (every size, no report);
/// with padding, memcheck guards 1 MiB after each allocation.
std::vector<std::string> sanitizer_argv(const std::string& tool, const std::string& worker,
                                        const std::string& dir, bool padding);
/// An "unchecked" problem when a sanitizer's run has no summary line or timed out (a finding
/// absent from an unfinished run is no evidence); empty when it finished.
std::vector<protocol::Issue> sanitizer_unfinished(const std::string& text, const std::string& tool,
                                                  bool timed_out, int exit_status,
                                                  int wall_seconds);

}  // namespace grader::internal
