// gpu/ceilings.cuh - the two ceilings the course's kernels are measured against, set up once and
// launched like a kernel (so the benchmarks time them with the harness): a 256 MiB device-to-device
// copy (bytes read + written) and cuBLAS SGEMM C = A B^T at 4096^3 in pedantic fp32 (no TF32).
// Needs cuBLAS (link -lcublas).
#pragma once

#include <cublas_v2.h>

#include "harness.cuh"

namespace course::gpu {

/// cudaMemcpy device to device of 256 MiB; bytes() counts what is read and written.
class CopyCeiling {
 public:
  CopyCeiling() : src_(kBytes), dst_(kBytes) { fill_uniform<float>(src_, 1); }
  void operator()() const {
    COURSE_CHECK_CUDA(cudaMemcpyAsync(dst_.data(), src_.data(), kBytes, cudaMemcpyDeviceToDevice));
  }
  static double bytes() { return 2.0 * kBytes; }

 private:
  static constexpr size_t kBytes = size_t{256} << 20;
  DeviceBuffer src_, dst_;
};

/// cuBLAS SGEMM of row-major C = A * B^T, n = 4096, pedantic fp32; flops() = 2 n^3.
class SgemmCeiling {
 public:
  SgemmCeiling() : a_(size_t{4} * kN * kN), b_(size_t{4} * kN * kN), c_(size_t{4} * kN * kN) {
    fill_uniform<float>(a_, 2);
    fill_uniform<float>(b_, 3);
    cublasCreate(&handle_);
    cublasSetMathMode(handle_, CUBLAS_PEDANTIC_MATH);
  }
  ~SgemmCeiling() { cublasDestroy(handle_); }
  SgemmCeiling(const SgemmCeiling&) = delete;
  SgemmCeiling& operator=(const SgemmCeiling&) = delete;
  /// Row-major C = A * B^T is column-major C^T = B * A^T: op(B) = T, op(A) = N.
  void operator()() const {
    const float one = 1.0f, zero = 0.0f;
    cublasSgemm(handle_, CUBLAS_OP_T, CUBLAS_OP_N, kN, kN, kN, &one, b_.as<float>(), kN,
                a_.as<float>(), kN, &zero, c_.as<float>(), kN);
  }
  static double flops() { return 2.0 * kN * kN * kN; }

 private:
  static constexpr int kN = 4096;
  DeviceBuffer a_, b_, c_;
  cublasHandle_t handle_ = nullptr;
};

}  // namespace course::gpu
