// bench_gpu.cu - Google Benchmark programs for every lesson kernel on a GPU (`make bench` builds
// and runs it when a GPU is present; JSON in build/bench/gpu.json). Each benchmark reports
// GB/s or TFLOP/s and its ratio to the ceiling measured in the same run: cudaMemcpy
// device-to-device for the memory-bound kernels, cuBLAS SGEMM (fp32, no TF32) for the GEMMs,
// 128 B x SMs x clock for the shared-memory demos. Times are CUDA-event times of single launches
// (manual time), each after an L2 flush.
#include <benchmark/benchmark.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "../gpu/course_kernels.cuh"
#include "gpu_harness.cuh"

namespace {

#define CHECK_CUDA COURSE_CHECK_CUDA

/// A device buffer filled with random values (never zeros).
struct Device : course::DeviceBuffer {
  explicit Device(size_t bytes) : course::DeviceBuffer(bytes) {
    course::fill_uniform<float>(*this, 1);
  }
  void* const p = data();
};

/// Times f() once per iteration (course::time_once_ms: CUDA events after an L2 flush); returns
/// the median in seconds.
template <typename F>
double run(benchmark::State& state, F f) {
  f();  // warm-up
  CHECK_CUDA(cudaDeviceSynchronize());
  std::vector<double> times;
  for (auto _ : state) {
    const double s = course::time_once_ms(f) / 1e3;
    state.SetIterationTime(s);
    times.push_back(s);
  }
  std::sort(times.begin(), times.end());
  return times.empty() ? 0.0 : times[times.size() / 2];
}

// Ceilings, measured once per run.
double memcpy_gbs() {
  static double v = [] {
    const size_t bytes = size_t{256} << 20;
    Device src(bytes), dst(bytes);
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    std::vector<float> t;
    for (int i = 0; i < 12; ++i) {
      cudaEventRecord(a);
      cudaMemcpyAsync(dst.p, src.p, bytes, cudaMemcpyDeviceToDevice);
      cudaEventRecord(b);
      cudaEventSynchronize(b);
      float ms = 0;
      cudaEventElapsedTime(&ms, a, b);
      if (i >= 2) t.push_back(ms);
    }
    std::sort(t.begin(), t.end());
    return 2.0 * bytes / (t[t.size() / 2] / 1e3) / 1e9;
  }();
  return v;
}

double smem_peak_tbs() {
  int sms = 0, khz = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0);
  return sms * 128.0 * khz * 1e3 / 1e12;
}

/// Counters from the median launch time: the rate, the ceiling measured in this run, and their
/// ratio (e.g. "GB/s", "memcpy_GBs", "fraction_of_memcpy").
void set_rate(benchmark::State& state, double median_s, double units_per_launch, const char* name,
              double ceiling, const char* ceiling_name) {
  const double rate = median_s > 0 ? units_per_launch / median_s : 0.0;
  state.counters[name] = rate;
  state.counters[ceiling_name] = ceiling;
  state.counters["fraction"] = ceiling > 0 ? rate / ceiling : 0.0;
}

// ---- Shared-memory demos (lessons 01-03) ------------------------------------------------------
void BM_smem_stride(benchmark::State& state) {
  const int stride = static_cast<int>(state.range(0));
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  const int blocks = 16 * sms, iters = 4096;
  Device out(static_cast<size_t>(blocks) * 1024 * 4);
  const double t = run(state, [&] {
    demo::shared_stride_throughput<<<blocks, 1024>>>(out.as<float>(), stride, iters);
  });
  set_rate(state, t, 1.0 * blocks * 1024 * iters * 4 / 1e12, "TB/s", smem_peak_tbs(), "smem_TBs");
}
BENCHMARK(BM_smem_stride)
    ->Arg(1)
    ->Arg(2)
    ->Arg(3)
    ->Arg(4)
    ->Arg(8)
    ->Arg(16)
    ->Arg(32)
    ->Arg(33)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

void BM_smem_column(benchmark::State& state) {
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  const int blocks = 16 * sms, iters = 4096;
  Device out(static_cast<size_t>(blocks) * 1024 * 4);
  const double t = run(state, [&] {
    if (state.range(0) == 0) {
      demo::shared_column_throughput<0><<<blocks, dim3(32, 32)>>>(out.as<float>(), iters);
    } else {
      demo::shared_column_throughput<1><<<blocks, dim3(32, 32)>>>(out.as<float>(), iters);
    }
  });
  set_rate(state, t, 1.0 * blocks * 1024 * iters * 4 / 1e12, "TB/s", smem_peak_tbs(), "smem_TBs");
}
BENCHMARK(BM_smem_column)
    ->Arg(0)
    ->Arg(1)
    ->ArgName("pad")
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

// ---- Transposes (lessons 02, 04, 06, 07) ------------------------------------------------------
#define TRANSPOSE_F32(NAME, FN, TILE, ROWS)                                                 \
  void BM_##NAME(benchmark::State& state) {                                                 \
    const int n = 8192;                                                                     \
    Device in(size_t(n) * n * 4), out(size_t(n) * n * 4);                                   \
    const dim3 g((n + TILE - 1) / TILE, (n + TILE - 1) / TILE), b(TILE, ROWS);              \
    const double t = run(state, [&] { FN<<<g, b>>>(out.as<float>(), in.as<float>(), n); }); \
    set_rate(state, t, 2.0 * n * n * 4 / 1e9, "GB/s", memcpy_gbs(), "memcpy_GBs");          \
  }                                                                                         \
  BENCHMARK(BM_##NAME)->UseManualTime()->Unit(benchmark::kMicrosecond);

TRANSPOSE_F32(transpose_global, base04::transpose_global, 32, 8)
TRANSPOSE_F32(transpose_tiled_naive, base04::transpose_tiled_naive, 32, 8)
TRANSPOSE_F32(transpose_tiled_padded, sol04::transpose_tiled, 32, 8)
TRANSPOSE_F32(transpose_swizzled, corpus::transpose_swizzled, 32, 8)
TRANSPOSE_F32(transpose_padded_tuned_64x8, (fast::transpose_padded_tuned<64, 8>), 64, 8)

void BM_ex02(benchmark::State& state) {
  const long rows = 1L << 21;
  Device in(rows * 32 * 4), out(rows * 32 * 4);
  const unsigned grid = static_cast<unsigned>((rows + 31) / 32);
  const double t = run(state, [&] {
    if (state.range(0) == 0) {
      base02::transpose_n_by_32_naive<<<grid, dim3(32, 32)>>>(out.as<float>(), in.as<float>(),
                                                              rows);
    } else {
      sol02::transpose_n_by_32<<<grid, dim3(32, 32)>>>(out.as<float>(), in.as<float>(), rows);
    }
  });
  set_rate(state, t, 2.0 * rows * 32 * 4 / 1e9, "GB/s", memcpy_gbs(), "memcpy_GBs");
}
BENCHMARK(BM_ex02)
    ->Arg(0)
    ->Arg(1)
    ->ArgName("solution")
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);

void BM_ex03(benchmark::State& state) {
  const long n = 1L << 26;
  Device in(2 * n * 4), out(n * 4);
  const unsigned grid = static_cast<unsigned>((n - 1 + 255) / 256);
  const double t = run(state, [&] {
    if (state.range(0) == 0) {
      base03::complex_neighbour_diff_interleaved<<<grid, 256>>>(out.as<float>(), in.as<float>(), n);
    } else {
      sol03::complex_neighbour_diff<<<grid, 256>>>(out.as<float>(), in.as<float>(), n);
    }
  });
  set_rate(state, t, (2.0 * n * 4 + (n - 1) * 4.0) / 1e9, "GB/s", memcpy_gbs(), "memcpy_GBs");
}
BENCHMARK(BM_ex03)
    ->Arg(0)
    ->Arg(1)
    ->ArgName("solution")
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);

void BM_ex06(benchmark::State& state) {
  const int n = 4096;
  Device in(size_t(n) * n * 16), out(size_t(n) * n * 16);
  const dim3 g((n + 7) / 8, (n + 31) / 32), b(8, 32);
  const double t = run(state, [&] {
    if (state.range(0) == 0) {
      base06::transpose_float4_naive<<<g, b>>>(out.as<float4>(), in.as<float4>(), n);
    } else {
      sol06::transpose_float4<<<g, b>>>(out.as<float4>(), in.as<float4>(), n);
    }
  });
  set_rate(state, t, 2.0 * n * n * 16 / 1e9, "GB/s", memcpy_gbs(), "memcpy_GBs");
}
BENCHMARK(BM_ex06)
    ->Arg(0)
    ->Arg(1)
    ->ArgName("solution")
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);

void BM_ex07(benchmark::State& state) {
  const int n = 8192;
  Device in(size_t(n) * n * 8), out(size_t(n) * n * 8);
  const dim3 g((n + 31) / 32, (n + 31) / 32), b(32, 8);
  const double t = run(state, [&] {
    if (state.range(0) == 0) {
      base07::transpose_double_naive<<<g, b>>>(out.as<double>(), in.as<double>(), n);
    } else {
      sol07::transpose_double<<<g, b>>>(out.as<double>(), in.as<double>(), n);
    }
  });
  set_rate(state, t, 2.0 * n * n * 8 / 1e9, "GB/s", memcpy_gbs(), "memcpy_GBs");
}
BENCHMARK(BM_ex07)
    ->Arg(0)
    ->Arg(1)
    ->ArgName("solution")
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);

// ---- GEMM (lesson 05) against cuBLAS -----------------------------------------------------------
double cublas_tflops(int n) {
  static double v = [n] {
    Device a(size_t(n) * n * 4), b(size_t(n) * n * 4), c(size_t(n) * n * 4);
    cublasHandle_t h;
    cublasCreate(&h);
    cublasSetMathMode(h, CUBLAS_PEDANTIC_MATH);
    const float one = 1, zero = 0;
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    std::vector<float> t;
    for (int i = 0; i < 8; ++i) {
      cudaEventRecord(e0);
      cublasSgemm(h, CUBLAS_OP_T, CUBLAS_OP_N, n, n, n, &one, b.as<float>(), n, a.as<float>(), n,
                  &zero, c.as<float>(), n);
      cudaEventRecord(e1);
      cudaEventSynchronize(e1);
      float ms = 0;
      cudaEventElapsedTime(&ms, e0, e1);
      if (i >= 2) t.push_back(ms);
    }
    cublasDestroy(h);
    std::sort(t.begin(), t.end());
    return 2.0 * n * n * n / (t[t.size() / 2] / 1e3) / 1e12;
  }();
  return v;
}

void BM_gemm(benchmark::State& state) {
  const int n = 4096;
  Device a(size_t(n) * n * 4), b(size_t(n) * n * 4), c(size_t(n) * n * 4);
  const dim3 g(n / 32, n / 32), blk(32, 32);
  const double t = run(state, [&] {
    if (state.range(0) == 0) {
      base05::gemm_abt_naive<<<g, blk>>>(c.as<float>(), a.as<float>(), b.as<float>(), n, n, n);
    } else if (state.range(0) == 1) {
      sol05::gemm_abt<<<g, blk>>>(c.as<float>(), a.as<float>(), b.as<float>(), n, n, n);
    } else {
      fast05::gemm_abt_register_blocked<<<dim3(n / 128, n / 128), 256>>>(
          c.as<float>(), a.as<float>(), b.as<float>(), n, n, n);
    }
  });
  set_rate(state, t, 2.0 * n * n * n / 1e12, "TFLOP/s", cublas_tflops(n), "cublas_TFLOPs");
}
BENCHMARK(BM_gemm)  // 0: lesson 05 baseline, 1: exercise 05 solution, 2: exercise 08 solution
    ->Arg(0)
    ->Arg(1)
    ->Arg(2)
    ->ArgName("variant")
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
