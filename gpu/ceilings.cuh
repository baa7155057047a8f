// gpu/ceilings.cuh - the two ceilings the course's kernels are measured against, set up once and
// launched like a kernel (so the benchmarks and the grader's GPU worker time them with the
// harness): a device-to-device copy (256 MiB unless told; bytes read + written) and cuBLAS SGEMM
// C = A B^T (4096^3 unless told) in pedantic fp32 (no TF32). Needs cuBLAS (link -lcublas).
#pragma once

#include <cublas_v2.h>

#include "harness.cuh"

namespace course::gpu {

/// cudaMemcpy device to device of `bytes` (256 MiB by default); bytes() counts what is read and
/// written.
class CopyCeiling {
 public:
  explicit CopyCeiling(size_t bytes = size_t{256} << 20) : n_(bytes), src_(bytes), dst_(bytes) {
    fill_uniform<float>(src_, 1);
  }
  void operator()() const {
    COURSE_CHECK_CUDA(cudaMemcpyAsync(dst_.data(), src_.data(), n_, cudaMemcpyDeviceToDevice));
  }
  double bytes() const { return 2.0 * static_cast<double>(n_); }

 private:
  size_t n_;
  DeviceBuffer src_, dst_;
};

/// cuBLAS SGEMM of row-major C (m x n) = A (m x k) * B^T (B: n x k), pedantic fp32; flops() =
/// 2 m n k. 4096^3 by default.
class SgemmCeiling {
 public:
  explicit SgemmCeiling(int m = 4096, int n = 4096, int k = 4096)
      : m_(m), n_(n), k_(k), a_(size_t{4} * m * k), b_(size_t{4} * n * k), c_(size_t{4} * m * n) {
    fill_uniform<float>(a_, 2);
    fill_uniform<float>(b_, 3);
    cublasCreate(&handle_);
    cublasSetMathMode(handle_, CUBLAS_PEDANTIC_MATH);
  }
  ~SgemmCeiling() { cublasDestroy(handle_); }
  SgemmCeiling(const SgemmCeiling&) = delete;
  SgemmCeiling& operator=(const SgemmCeiling&) = delete;
  /// Row-major C = A * B^T is column-major C^T (n x m) = B * A^T: op(B) = T, op(A) = N.
  void operator()() const {
    const float one = 1.0f, zero = 0.0f;
    cublasSgemm(handle_, CUBLAS_OP_T, CUBLAS_OP_N, n_, m_, k_, &one, b_.as<float>(), k_,
                a_.as<float>(), k_, &zero, c_.as<float>(), n_);
  }
  double flops() const { return 2.0 * m_ * n_ * k_; }

 private:
  int m_, n_, k_;
  DeviceBuffer a_, b_, c_;
  cublasHandle_t handle_ = nullptr;
};

}  // namespace course::gpu
