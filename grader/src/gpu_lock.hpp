// gpu_lock.hpp - the lock that serialises timing and profiling on one GPU between graders and
// their threads (not part of the API).
#pragma once

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <mutex>

namespace grader::internal {

/// The order of one grader's own steps on the GPU, before the file lock (which orders graders
/// between them): steps alone in turn (first come, first served), and shared steps gathered.
/// A shared step that arrives while a step alone holds the GPU or waits for it waits, with every
/// shared step that arrives after it, until no step alone waits any more, or until the first of
/// them has waited `max_shared_wait` (then at the end of the step alone that holds the GPU);
/// then they all enter at once, ahead of later steps alone. The sanitizers of a class thus run
/// side by side in a few gatherings, not between every two timings: each gathering keeps the
/// steps alone out until its last sanitizer ends (measurements/gpu-grading/
/// 2026-12-03-class-scale.md), and a shared step waits no longer than the bound.
class GpuGate {
 public:
  using Clock = std::chrono::steady_clock;
  /// How long the GPU was held, over the gate's life: alone, by shared steps only, by neither.
  struct Usage {
    double alone_seconds = 0, shared_seconds = 0, idle_seconds = 0;
    int alone_steps = 0, shared_steps = 0, gatherings = 0;
  };
  explicit GpuGate(Clock::duration max_shared_wait = std::chrono::seconds(20))
      : max_wait_(max_shared_wait), since_(Clock::now()) {}
  static GpuGate& process() {
    static GpuGate gate;
    return gate;
  }
  void enter_shared() {
    std::unique_lock<std::mutex> l(m_);
    if (!alone_ && tickets_ == serving_) {
      account();
      ++shared_;
      ++usage_.shared_steps;
      return;
    }
    if (blocked_++ == 0) first_blocked_ = Clock::now();
    const std::uint64_t g = grants_;
    cv_.wait(l, [&] { return grants_ != g; });  // admitted (and counted) by the step alone
  }
  void leave_shared() {
    const std::lock_guard<std::mutex> l(m_);
    account();
    if (--shared_ == 0) cv_.notify_all();
  }
  void enter_alone() {
    std::unique_lock<std::mutex> l(m_);
    const std::uint64_t t = tickets_++;
    cv_.wait(l, [&] { return t == serving_ && !alone_ && shared_ == 0; });
    account();
    alone_ = true;
    ++usage_.alone_steps;
  }
  void leave_alone() {
    const std::lock_guard<std::mutex> l(m_);
    account();
    alone_ = false;
    ++serving_;
    // The shared steps that wait enter now, before the next step alone, when none waits or
    // when the first of them has waited long enough.
    if (blocked_ > 0 && (tickets_ == serving_ || Clock::now() - first_blocked_ >= max_wait_)) {
      shared_ += blocked_;
      usage_.shared_steps += blocked_;
      ++usage_.gatherings;
      blocked_ = 0;
      ++grants_;
    }
    cv_.notify_all();
  }
  /// The gate's accounts so far.
  Usage usage() {
    const std::lock_guard<std::mutex> l(m_);
    account();
    return usage_;
  }

 private:
  /// Adds the time since the last change to what held the GPU then (the caller holds m_).
  void account() {
    const auto now = Clock::now();
    const double s = std::chrono::duration<double>(now - since_).count();
    since_ = now;
    (alone_        ? usage_.alone_seconds
     : shared_ > 0 ? usage_.shared_seconds
                   : usage_.idle_seconds) += s;
  }
  std::mutex m_;
  std::condition_variable cv_;
  Clock::duration max_wait_;
  int shared_ = 0;                           ///< shared steps holding the GPU
  int blocked_ = 0;                          ///< shared steps waiting for a gathering
  Clock::time_point first_blocked_;          ///< when the first of them began to wait
  bool alone_ = false;                       ///< a step holds the GPU alone
  std::uint64_t tickets_ = 0, serving_ = 0;  ///< steps alone, in turn
  std::uint64_t grants_ = 0;                 ///< gatherings so far
  Clock::time_point since_;                  ///< the last change of who holds the GPU
  Usage usage_;
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
  explicit GpuLock(const std::filesystem::path& file, GpuGate& gate = GpuGate::process())
      : gate_(gate) {
    fd_ = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    turn_ = ::open((file.string() + ".turn").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  }
  GpuLock(const std::filesystem::path& file, bool exclusive, GpuGate& gate = GpuGate::process())
      : GpuLock(file, gate) {
    set(exclusive);
  }
  /// Holds the GPU shared or alone, waiting in turn as needed; nothing to do when it is held so.
  void set(bool exclusive) {
    if (fd_ < 0) return;
    const Hold want = exclusive ? Hold::kAlone : Hold::kShared;
    if (held_ == want) return;
    release();
    if (exclusive) {
      gate_.enter_alone();
    } else {
      gate_.enter_shared();
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
      gate_.leave_alone();
    } else {
      gate_.leave_shared();
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
  GpuGate& gate_;
  int fd_ = -1;
  int turn_ = -1;
  Hold held_ = Hold::kNone;
};

}  // namespace grader::internal
