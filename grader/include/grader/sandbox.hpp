// grader/sandbox.hpp - run one untrusted program (a student's build or test) in a bubblewrap
// (`bwrap`) sandbox with resource limits, wall-clock timeout and capped output capture.
//
// Use:
//   std::string why;
//   if (!grader::sandbox_available(&why)) { /* print `why`; stop, or honour --no-sandbox */ }
//   grader::SandboxSpec spec;
//   spec.ro_paths = {"/usr/local/cuda", submission_dir};
//   spec.rw_dir = work_dir;                              // must exist; the only writable folder
//   spec.dev_nodes = {"/dev/nvidia0", "/dev/nvidiactl", "/dev/nvidia-uvm"};
//   spec.memory_bytes = 0;                               // CUDA needs a huge address space
//   grader::SandboxResult r = grader::run_sandboxed({"/usr/bin/make", "-C", work_dir}, spec);
//
// Inside: no network, its own pid/ipc/uts/user/mount namespaces, no capabilities, uid/gid 65534,
// a read-only /usr (+ /bin, /lib... and a few /etc files for the loader), ro_paths, rw_dir, a
// private /tmp, a minimal read-only /dev with the listed device nodes. Nothing started inside
// outlives the call. Everything rw_dir contains afterwards was written by hostile code: read it
// without following symlinks (O_NOFOLLOW) and treat sizes and contents as untrusted.
//
// When the grader runs as root, the sandbox runs as host uid `SandboxSpec::sandbox_uid` (so that
// RLIMIT_NPROC counts only its processes): rw_dir is chowned to that uid, and what ro_paths hold
// must be readable by it (world-readable). A folder on the way to them that others cannot enter
// (mode 0700) is passed through the sandbox's own binds, made as root in a private mount
// namespace before the uid switch: nothing on the host is opened up.
/// \file
/// Running one untrusted program in a bubblewrap sandbox with limits, a timeout and capped output.
#pragma once

#include <atomic>
#include <cstddef>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace grader {

/// The PATH of every sandboxed (and --no-sandbox) run: a tool a run finds by name must be in one
/// of these folders, whatever the grader's own PATH holds.
inline constexpr const char* kSandboxPath = "/usr/local/bin:/usr/bin:/bin";

/// What the sandboxed program may see and use. Limits apply to every process it starts.
struct SandboxSpec {
  /// Host paths bound read-only at the same path inside (must exist).
  std::vector<std::filesystem::path> ro_paths;
  /// The one writable folder, bound at the same path inside and used as the working directory
  /// and $HOME. Must exist. Empty: none (the working directory is then the private /tmp).
  std::filesystem::path rw_dir;
  /// Device nodes (e.g. /dev/nvidia0, /dev/nvidiactl, /dev/nvidia-uvm) bound with --dev-bind if
  /// they exist on the host; missing ones are skipped.
  std::vector<std::string> dev_nodes;
  /// RLIMIT_CPU: CPU seconds per process (rounded up); SIGXCPU then SIGKILL one second later.
  double cpu_seconds = 60;
  /// RLIMIT_AS: address space per process; 0 = no limit (needed for CUDA programs).
  std::size_t memory_bytes = 8ull << 30;
  /// RLIMIT_FSIZE: largest file a process may write (SIGXFSZ past it); also the size of the
  /// in-memory /tmp and /dev/shm of the sandbox. 0 = no limit.
  std::size_t file_bytes = 1ull << 30;
  /// RLIMIT_NOFILE: open file descriptors per process.
  int open_files = 256;
  /// RLIMIT_NPROC: processes and threads of the sandbox at once, its two bwrap helper processes
  /// included. Exact when the grader runs as root (see sandbox_uid); otherwise approximate.
  int processes = 64;
  /// Cap for stdout and for stderr, each; the rest is read and discarded, and a visible note
  /// "[... output cut at 1 MiB by the grader]" is appended to the kept part.
  std::size_t output_cap = 1 << 20;
  /// Wall-clock limit; when it passes, everything in the sandbox is killed.
  double wall_seconds = 120;
  /// Seconds added to wall_seconds, read as the run goes (the caller may change them): a GPU
  /// step's worker that waits for the grader's go word (the GPU lock) is not charged for the
  /// wait. Null: none.
  std::shared_ptr<const std::atomic<double>> wall_extra;
  /// File descriptors opened by the caller that the program keeps, at the same numbers (>= 3),
  /// e.g. the write end of a report pipe. All other descriptors are closed in the child.
  std::vector<int> pass_fds;
  /// Extra environment entries ("NAME=value"), after the minimal PATH, HOME, TMPDIR and LANG
  /// (e.g. LD_LIBRARY_PATH for the GPU driver's libraries).
  std::vector<std::string> extra_env;
  /// For a GPU profiler (ncu) only: the NVIDIA driver gives hardware counters to admins alone,
  /// so with the grader running as root the sandbox keeps uid 0 and, of all capabilities, only
  /// CAP_SYS_ADMIN, without a user namespace. Every other wall holds (own pid/net/ipc/uts/mount
  /// namespaces, the read-only view, the limits). Use it only for a binary whose own code has
  /// passed the submission policy (no host code of the student's runs; device code cannot make
  /// system calls). Ignored when the grader is not root.
  bool profiler = false;
  /// Host uid and gid the sandbox runs as when the grader is root (ignored otherwise).
  /// RLIMIT_NPROC counts every process of this uid on the host: sandboxes that run at the same
  /// time should each get a uid that nothing else uses.
  unsigned sandbox_uid = 65534;
};

/// What came out of one run.
struct SandboxResult {
  /// Exit code, or 128 + signal number when killed by a signal (e.g. 137 = SIGKILL, 152 =
  /// SIGXCPU); 127 when the program could not be started.
  int exit_status = 0;
  /// True when wall_seconds passed and the run was killed.
  bool timed_out = false;
  /// Captured output, raw bytes (not necessarily UTF-8), at most output_cap plus the note each.
  std::string stdout_text, stderr_text;  ///< stderr_text: stderr, as stdout_text
  /// True when the matching stream was cut at output_cap.
  bool stdout_cut = false, stderr_cut = false;  ///< stderr_cut: stderr was cut
  /// Wall-clock duration of the run.
  double seconds = 0;
  /// Empty when the program was started; otherwise why it was not (bwrap missing, sandbox
  /// setup failed, exec failed); bwrap's own message is then in stderr_text.
  std::string error;
};

/// How run_sandboxed isolates student code, for the whole process.
///  * kBwrap (default): bubblewrap's namespaces, as described in sandbox.cpp.
///  * kUid: for containers that forbid user namespaces (some course platforms): the grader must
///    be root; the program runs as its sandbox uid with the same rlimits, timeout and captured
///    output, in its rw_dir, and every process of that uid is killed when the run ends. It cannot
///    write what root owns (the results) nor read what others may not, nor signal or trace the
///    grader; unlike kBwrap it sees the file system as any other user does and has the network.
enum class Isolation { kBwrap, kUid };
/// Sets the isolation every later run_sandboxed() uses (process-wide; default kBwrap).
void set_isolation(Isolation isolation);
/// The isolation set by set_isolation().
Isolation isolation();

/// True when student code can be isolated: bubblewrap is installed and a trial sandbox runs
/// /bin/true (kBwrap), or the grader is root (kUid). Otherwise false, and *why (if not null)
/// says what is missing and what to install or change.
bool sandbox_available(std::string* why);

/// Runs argv (argv[0]: an absolute path visible inside, never a shell string) in a bwrap
/// sandbox per spec and waits for it. Throws std::invalid_argument for an empty argv, a
/// relative argv[0], a pass_fd that is not open or < 3, or a missing ro_path or rw_dir.
SandboxResult run_sandboxed(const std::vector<std::string>& argv, const SandboxSpec& spec);

/// Like run_sandboxed, with the same limits, caps, timeout and descriptor handling, but without
/// bwrap and as the grader's own user: for an instructor's explicit --no-sandbox on trusted
/// code. Processes that leave the program's session may outlive the run.
SandboxResult run_unsandboxed(const std::vector<std::string>& argv, const SandboxSpec& spec);

}  // namespace grader
