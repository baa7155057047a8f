// gpu_lock.hpp - the lock that serialises timing and profiling on one GPU between graders and
// their threads (not part of the API).
#pragma once

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <mutex>

namespace grader::internal {

/// The order of one grader's own steps on the GPU, before the file lock (which orders graders
/// between them): steps alone in turn (first come, first served), and shared steps phase-fair.
/// A shared step that arrives while a step alone holds the GPU or waits for it waits for the
/// next such step to end; then every shared step waiting enters at once, ahead of later steps
/// alone. The sanitizers of many students thus run side by side between two timings, rather
/// than one by one between them.
class GpuGate {
 public:
  static GpuGate& process() {
    static GpuGate gate;
    return gate;
  }
  void enter_shared() {
    std::unique_lock<std::mutex> l(m_);
    if (!alone_ && tickets_ == serving_) {
      ++shared_;
      return;
    }
    ++blocked_;
    const std::uint64_t g = grants_;
    cv_.wait(l, [&] { return grants_ != g; });  // admitted (and counted) by the step alone
  }
  void leave_shared() {
    const std::lock_guard<std::mutex> l(m_);
    if (--shared_ == 0) cv_.notify_all();
  }
  void enter_alone() {
    std::unique_lock<std::mutex> l(m_);
    const std::uint64_t t = tickets_++;
    cv_.wait(l, [&] { return t == serving_ && !alone_ && shared_ == 0; });
    alone_ = true;
  }
  void leave_alone() {
    const std::lock_guard<std::mutex> l(m_);
    alone_ = false;
    ++serving_;
    if (blocked_ > 0) {  // every shared step that waited enters now, before the next alone
      shared_ += blocked_;
      blocked_ = 0;
      ++grants_;
    }
    cv_.notify_all();
  }

 private:
  std::mutex m_;
  std::condition_variable cv_;
  int shared_ = 0;                           ///< shared steps holding the GPU
  int blocked_ = 0;                          ///< shared steps waiting for a step alone to end
  bool alone_ = false;                       ///< a step holds the GPU alone
  std::uint64_t tickets_ = 0, serving_ = 0;  ///< steps alone, in turn
  std::uint64_t grants_ = 0;                 ///< times waiting shared steps were let in
};

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
/// every step that arrived meanwhile). Within one grader, GpuGate orders the steps first.
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
    if (exclusive) {
      GpuGate::process().enter_alone();
    } else {
      GpuGate::process().enter_shared();
    }
    if (turn_ >= 0) take(turn_, LOCK_EX);
    take(fd_, exclusive ? LOCK_EX : LOCK_SH);
    if (turn_ >= 0) ::flock(turn_, LOCK_UN);
    held_ = want;
  }
  /// Lets go of the GPU while the step does CPU work (reading a profiler's report); set()
  /// takes it again.
  void release() {
    if (held_ == Hold::kNone) return;
    ::flock(fd_, LOCK_UN);
    if (held_ == Hold::kAlone) {
      GpuGate::process().leave_alone();
    } else {
      GpuGate::process().leave_shared();
    }
    held_ = Hold::kNone;
  }
  /// True while the GPU is held alone.
  bool alone() const { return held_ == Hold::kAlone; }
  ~GpuLock() {
    release();
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
