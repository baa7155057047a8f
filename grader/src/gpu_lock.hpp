// gpu_lock.hpp - the lock that serialises timing and profiling on one GPU between graders and
// their threads (not part of the API).
#pragma once

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>

namespace grader::internal {

/// The GPU shared by a class graded with --jobs N: a timing run holds it alone (a kernel beside
/// it would slow it down), ncu too (the driver serves one profiler at a time); plain runs and
/// the sanitizers share it.
///
/// Two flocks on files beside the grader's binaries, released when the step ends (never
/// inherited by children): `gpu.lock` is the lock itself, shared or exclusive; `gpu.lock.turn`
/// is a turnstile taken (alone) by whoever waits for gpu.lock, so that a step waiting for the
/// GPU alone is not overtaken by a stream of shared steps: they queue behind it. A step lets
/// go of gpu.lock before it queues at the turnstile, so no one holds the lock while waiting
/// for the turnstile (no deadlock between two steps that change their hold). A step that
/// already holds the GPU the way it asks for keeps its place (it does not queue again behind
/// every step that arrived meanwhile).
class GpuLock {
 public:
  /// Opens the lock's files without taking the GPU: set() takes it.
  explicit GpuLock(const std::filesystem::path& file) {
    fd_ = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    turn_ = ::open((file.string() + ".turn").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  }
  GpuLock(const std::filesystem::path& file, bool exclusive) : GpuLock(file) { set(exclusive); }
  /// Holds the GPU shared or alone, waiting in turn as needed; nothing to do when it is held so.
  void set(bool exclusive) {
    if (fd_ < 0) return;
    const Hold want = exclusive ? Hold::kAlone : Hold::kShared;
    if (held_ == want) return;
    release();
    if (turn_ >= 0) take(turn_, LOCK_EX);
    take(fd_, exclusive ? LOCK_EX : LOCK_SH);
    if (turn_ >= 0) ::flock(turn_, LOCK_UN);
    held_ = want;
  }
  /// Lets go of the GPU while the step does CPU work (reading a profiler's report); set()
  /// takes it again.
  void release() {
    if (fd_ >= 0) ::flock(fd_, LOCK_UN);
    held_ = Hold::kNone;
  }
  /// True while the GPU is held alone.
  bool alone() const { return held_ == Hold::kAlone; }
  ~GpuLock() {
    if (fd_ >= 0) ::close(fd_);
    if (turn_ >= 0) ::close(turn_);
  }
  GpuLock(const GpuLock&) = delete;
  GpuLock& operator=(const GpuLock&) = delete;

 private:
  static void take(int fd, int how) {
    while (::flock(fd, how) != 0 && errno == EINTR) {
    }
  }
  enum class Hold { kNone, kShared, kAlone };
  int fd_ = -1;
  int turn_ = -1;
  Hold held_ = Hold::kNone;
};

}  // namespace grader::internal
