// gpu/harness.cuh - the one GPU harness of the course: checked CUDA calls, RAII device buffers,
// seeded random fill, poison, an L2 flush, CUDA-event timing with warm-up and median, and a
// generic Job (a kernel pointer, its launch geometry, host buffers and arguments) that is run
// once (outputs copied back) or timed (fresh inputs and a flushed L2 before every launch).
// Used by the grader's GPU worker (gpu/worker.cu), the course benchmark (gpu/course_bench.cu)
// and the Google Benchmark programs (gpu/bench_gpu.cu). Header-only, CUDA toolkit only, so it
// builds on a bare GPU machine.
//
//   course::gpu::Job job = ...;                     // see gpu/registry_jobs.cuh
//   std::string error;
//   if (!course::gpu::run_once(kernel, job, &error)) ...   // job.buffers now hold the results
//   const double ms = course::gpu::median_ms_fresh(kernel, job);
/// \file
/// The course's GPU harness: checked CUDA calls, device buffers, fill and poison, timing, the
/// generic Job.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

/// Aborts with file, line and CUDA's message when a CUDA call fails.
#define COURSE_CHECK_CUDA(call)                                          \
  do {                                                                   \
    const cudaError_t course_err_ = (call);                              \
    if (course_err_ != cudaSuccess) {                                    \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, \
                   cudaGetErrorString(course_err_));                     \
      std::exit(1);                                                      \
    }                                                                    \
  } while (0)

/// The GPU side of the course (compiled by nvcc): harness, registry jobs, kernel table.
namespace course::gpu {

/// Device memory owned by one object (cudaMalloc / cudaFree).
class DeviceBuffer {
 public:
  /// cudaMalloc of `bytes` (at least 1); exits the program on a CUDA error.
  explicit DeviceBuffer(size_t bytes) : bytes_(bytes) {
    COURSE_CHECK_CUDA(cudaMalloc(&p_, std::max<size_t>(bytes, 1)));
  }
  /// cudaFree of the memory.
  ~DeviceBuffer() { cudaFree(p_); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  /// The device pointer.
  void* data() const { return p_; }
  /// Its size in bytes.
  size_t bytes() const { return bytes_; }
  /// The device pointer as T*.
  template <typename T>
  T* as() const {
    return static_cast<T*>(p_);
  }

 private:
  void* p_ = nullptr;
  size_t bytes_ = 0;
};

/// Fills a buffer with values uniform in [-1, 1) drawn from `seed` (never zeros: they hide
/// unwritten outputs and can run faster than real data).
template <typename T>
void fill_uniform(const DeviceBuffer& b, unsigned seed) {
  std::vector<T> h(b.bytes() / sizeof(T));
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  for (auto& x : h) x = static_cast<T>(d(rng));
  COURSE_CHECK_CUDA(cudaMemcpy(b.data(), h.data(), b.bytes(), cudaMemcpyHostToDevice));
}

/// Sets every byte to 0xff (NaN for floats), so that unwritten outputs show.
inline void poison(const DeviceBuffer& b) {
  COURSE_CHECK_CUDA(cudaMemset(b.data(), 0xff, b.bytes()));
}

/// Evicts the L2 (60 MB on an H200) by writing 256 MB, so timed kernels start cold.
/// The buffer lives as long as the context (never freed at exit: a worker that reset the device
/// before it exits would otherwise make a new context only to free it).
inline void flush_l2() {
  static DeviceBuffer* scratch = new DeviceBuffer(size_t{256} << 20);
  static int round = 0;
  COURSE_CHECK_CUDA(cudaMemsetAsync(scratch->data(), ++round & 0xff, scratch->bytes()));
}

/// Time of one call of f() in ms, measured with CUDA events after an L2 flush.
template <typename F>
float time_once_ms(F f) {
  cudaEvent_t a, b;
  COURSE_CHECK_CUDA(cudaEventCreate(&a));
  COURSE_CHECK_CUDA(cudaEventCreate(&b));
  flush_l2();
  COURSE_CHECK_CUDA(cudaEventRecord(a));
  f();
  COURSE_CHECK_CUDA(cudaEventRecord(b));
  COURSE_CHECK_CUDA(cudaEventSynchronize(b));
  COURSE_CHECK_CUDA(cudaGetLastError());
  float ms = 0;
  COURSE_CHECK_CUDA(cudaEventElapsedTime(&ms, a, b));
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  return ms;
}

/// Median of sorted-in-place times.
inline double median(std::vector<float> t) {
  std::sort(t.begin(), t.end());
  return t.empty() ? -1.0 : t[t.size() / 2];
}

/// Median time in ms of `reps` calls of f() (each after an L2 flush), after `warmup` calls.
template <typename F>
double median_ms(F f, int reps = 15, int warmup = 2) {
  for (int i = 0; i < warmup; ++i) f();
  COURSE_CHECK_CUDA(cudaDeviceSynchronize());
  COURSE_CHECK_CUDA(cudaGetLastError());
  std::vector<float> t;
  for (int i = 0; i < reps; ++i) t.push_back(time_once_ms(f));
  return median(t);
}

/// One kernel argument: a buffer of the job (its device pointer) or an int.
struct JobArg {
  int buffer = -1;      ///< >= 0: index into Job::buffers
  long long value = 0;  ///< otherwise the int passed
};

/// One kernel call: geometry, the contents of every buffer before it, and its arguments.
struct Job {
  dim3 grid{1, 1, 1};                               ///< blocks in the grid
  dim3 block{1, 1, 1};                              ///< threads per block
  size_t smem = 0;                                  ///< bytes of dynamic shared memory
  std::vector<std::vector<unsigned char>> buffers;  ///< before; run_once() stores the after
  std::vector<JobArg> args;                         ///< the kernel's arguments, in order
};

/// The job's buffers on the device, a pristine copy of their initial contents, and the
/// parameter array cudaLaunchKernel takes.
class DeviceJob {
 public:
  /// Uploads every buffer twice (live and pristine), builds the parameters (ints as `int`),
  /// then reset()s. Keeps a reference to `job`, which must outlive it.
  explicit DeviceJob(const Job& job) : job_(job) {
    for (const auto& h : job.buffers) {
      live_.emplace_back(new DeviceBuffer(h.size()));
      pristine_.emplace_back(new DeviceBuffer(h.size()));
      COURSE_CHECK_CUDA(
          cudaMemcpy(pristine_.back()->data(), h.data(), h.size(), cudaMemcpyHostToDevice));
    }
    pointers_.resize(job.args.size());
    ints_.resize(job.args.size());
    for (size_t a = 0; a < job.args.size(); ++a) {
      if (job.args[a].buffer >= 0) {
        pointers_[a] = live_[static_cast<size_t>(job.args[a].buffer)]->data();
        params_.push_back(&pointers_[a]);
      } else {
        ints_[a] = static_cast<int>(job.args[a].value);
        params_.push_back(&ints_[a]);
      }
    }
    reset();
  }
  /// Frees the job's device buffers.
  ~DeviceJob() {
    for (auto* b : live_) delete b;
    for (auto* b : pristine_) delete b;
  }
  DeviceJob(const DeviceJob&) = delete;
  DeviceJob& operator=(const DeviceJob&) = delete;

  /// Restores every buffer to its initial contents (inputs fresh, outputs poisoned).
  void reset() const {
    for (size_t j = 0; j < live_.size(); ++j) {
      COURSE_CHECK_CUDA(cudaMemcpyAsync(live_[j]->data(), pristine_[j]->data(), live_[j]->bytes(),
                                        cudaMemcpyDeviceToDevice));
    }
  }
  /// Launches `kernel` once on the current contents (asynchronous).
  cudaError_t launch(const void* kernel) const {
    return cudaLaunchKernel(kernel, job_.grid, job_.block, const_cast<void**>(params_.data()),
                            job_.smem, nullptr);
  }
  /// Copies buffer j back to the host.
  std::vector<unsigned char> download(size_t j) const {
    std::vector<unsigned char> h(live_[j]->bytes());
    COURSE_CHECK_CUDA(cudaMemcpy(h.data(), live_[j]->data(), h.size(), cudaMemcpyDeviceToHost));
    return h;
  }
  /// Number of buffers.
  size_t size() const { return live_.size(); }

 private:
  const Job& job_;
  std::vector<DeviceBuffer*> live_;
  std::vector<DeviceBuffer*> pristine_;
  std::vector<void*> pointers_;
  std::vector<int> ints_;
  std::vector<void*> params_;
};

/// Runs `kernel` once on the job's buffers and stores their contents after it in job.buffers.
/// On a launch or kernel failure returns false with CUDA's message in *error (the context may
/// be unusable afterwards: a kernel fault is sticky).
inline bool run_once(const void* kernel, Job& job, std::string* error) {
  DeviceJob d(job);
  cudaError_t err = d.launch(kernel);
  if (err == cudaSuccess) err = cudaDeviceSynchronize();
  if (err != cudaSuccess) {
    *error = cudaGetErrorString(err);
    return false;
  }
  for (size_t j = 0; j < d.size(); ++j) job.buffers[j] = d.download(j);
  return true;
}

/// Median CUDA-event time in ms of `reps` launches of `kernel`, after `warmup` launches; before
/// every launch the buffers get their initial contents back (fresh inputs, poisoned outputs)
/// and the L2 is flushed. Returns -1 with *error set when a launch fails.
inline double median_ms_fresh(const void* kernel, const Job& job, std::string* error, int reps = 15,
                              int warmup = 2) {
  DeviceJob d(job);
  std::vector<float> times;
  cudaEvent_t a, b;
  COURSE_CHECK_CUDA(cudaEventCreate(&a));
  COURSE_CHECK_CUDA(cudaEventCreate(&b));
  for (int rep = 0; rep < warmup + reps; ++rep) {
    d.reset();
    flush_l2();
    COURSE_CHECK_CUDA(cudaEventRecord(a));
    cudaError_t err = d.launch(kernel);
    COURSE_CHECK_CUDA(cudaEventRecord(b));
    if (err == cudaSuccess) err = cudaEventSynchronize(b);
    if (err == cudaSuccess) err = cudaGetLastError();
    if (err != cudaSuccess) {
      *error = cudaGetErrorString(err);
      return -1.0;
    }
    float ms = 0;
    COURSE_CHECK_CUDA(cudaEventElapsedTime(&ms, a, b));
    if (rep >= warmup) times.push_back(ms);
  }
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  return median(times);
}

}  // namespace course::gpu
