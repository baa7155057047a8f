// gpu_lock.hpp - the lock that serialises timing and profiling on one GPU between graders and
// their threads (not part of the API).
#pragma once

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>

namespace grader::internal {

/// The GPU shared by a class graded with --jobs N: timing runs and ncu hold it alone (a run
/// beside a timing would slow it down; the performance counters serve one profiler at a time),
/// plain runs and the sanitizers share it. An flock on a file beside the grader's binaries,
/// released when the step ends (never inherited by children).
class GpuLock {
 public:
  GpuLock(const std::filesystem::path& file, bool exclusive) {
    fd_ = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    set(exclusive);
  }
  /// Converts the lock (shared <-> exclusive), waiting as needed.
  void set(bool exclusive) {
    if (fd_ < 0) return;
    while (::flock(fd_, exclusive ? LOCK_EX : LOCK_SH) != 0 && errno == EINTR) {
    }
  }
  ~GpuLock() {
    if (fd_ >= 0) ::close(fd_);
  }
  GpuLock(const GpuLock&) = delete;
  GpuLock& operator=(const GpuLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace grader::internal
