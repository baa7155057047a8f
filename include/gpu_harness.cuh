// gpu_harness.cuh - the small harness the course's GPU programs share (gpu/course_bench.cu,
// bench/bench_gpu.cu): a checked-call macro, RAII device buffers, random fill with a seed,
// poisoning, an L2 flush and CUDA-event timing with warm-up and median. Header-only, CUDA
// toolkit only, so it builds on a bare GPU machine.
//
//   course::DeviceBuffer in(n * sizeof(float));
//   course::fill_uniform<float>(in, /*seed=*/1);
//   const double ms = course::median_ms([&] { kernel<<<grid, block>>>(in.as<float>(), n); });
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
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

namespace course {

/// Device memory owned by one object (cudaMalloc / cudaFree).
class DeviceBuffer {
 public:
  explicit DeviceBuffer(size_t bytes) : bytes_(bytes) { COURSE_CHECK_CUDA(cudaMalloc(&p_, bytes)); }
  ~DeviceBuffer() { cudaFree(p_); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  void* data() const { return p_; }
  size_t bytes() const { return bytes_; }
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
inline void flush_l2() {
  static DeviceBuffer scratch(size_t{256} << 20);
  COURSE_CHECK_CUDA(cudaMemsetAsync(scratch.data(), 0, scratch.bytes()));
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

/// Median time in ms of `reps` calls of f() (each after an L2 flush), after `warmup` calls.
template <typename F>
double median_ms(F f, int reps = 15, int warmup = 2) {
  for (int i = 0; i < warmup; ++i) f();
  COURSE_CHECK_CUDA(cudaDeviceSynchronize());
  COURSE_CHECK_CUDA(cudaGetLastError());
  std::vector<float> t;
  for (int i = 0; i < reps; ++i) t.push_back(time_once_ms(f));
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

}  // namespace course
