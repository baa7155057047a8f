// course_bench.cu - times the course's own kernels on a GPU: the lessons' baselines against the
// solutions, with cudaMemcpy and cuBLAS SGEMM as ceilings, and checks every result against a CPU
// reference. One self-contained program (CUDA toolkit + cuBLAS only), so it builds on the bare
// GPU machine:
//   nvcc -O3 -std=c++17 -arch=sm_90 -lineinfo -Iinclude gpu/course_bench.cu -lcublas
//   ./course_bench            time everything (warm-up, L2 flushed, median of 15 event timings)
//   ./course_bench --profile  run every kernel once on a small size (for ncu / compute-sanitizer)
// Run by scripts/gpu-measure.sh, which also reads the Nsight Compute counters.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "course_todo.h"

#include "course_kernels.cuh"

#include "gpu_harness.cuh"

#define CHECK_CUDA COURSE_CHECK_CUDA

namespace {

bool g_profile = false;  // --profile: every kernel once, small sizes
int g_failures = 0;
std::FILE* g_json = nullptr;

using Buffer = course::DeviceBuffer;

/// Median time in ms (course::median_ms), or one checked launch in --profile mode.
template <typename F>
double time_ms(F f) {
  if (g_profile) {
    f();
    CHECK_CUDA(cudaGetLastError());
    CHECK_CUDA(cudaDeviceSynchronize());
    return 0.0;
  }
  return course::median_ms(f);
}

void record(const char* group, const char* name, double ms, const char* unit, double value,
            double ratio_to, const char* ratio_name) {
  std::printf("%-12s %-34s %10.4f ms %10.1f %-7s %7.2f%% of %s\n", group, name, ms, value, unit,
              100.0 * value / ratio_to, ratio_name);
  if (g_json != nullptr) {
    std::fprintf(g_json,
                 "{\"group\":\"%s\",\"kernel\":\"%s\",\"ms\":%.6f,\"value\":%.3f,\"unit\":\"%s\","
                 "\"fraction\":%.5f,\"of\":\"%s\"}\n",
                 group, name, ms, value, unit, value / ratio_to, ratio_name);
  }
}

template <typename T>
void fill_random(const Buffer& b, unsigned seed) {
  course::fill_uniform<T>(b, seed);
}

/// out must be in^T with `width` scalars of T per element (n_out_rows x n_out_cols).
template <typename T>
void check_transpose(const char* what, const Buffer& in, const Buffer& out, long rows_in,
                     long cols_in, int width) {
  std::vector<T> a(in.bytes() / sizeof(T)), b(out.bytes() / sizeof(T));
  CHECK_CUDA(cudaMemcpy(a.data(), in.data(), in.bytes(), cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(b.data(), out.data(), out.bytes(), cudaMemcpyDeviceToHost));
  long wrong = 0;
  for (long r = 0; r < rows_in; ++r) {
    for (long c = 0; c < cols_in; ++c) {
      for (int w = 0; w < width; ++w) {
        if (!(b[(c * rows_in + r) * width + w] == a[(r * cols_in + c) * width + w])) ++wrong;
      }
    }
  }
  if (wrong != 0) {
    std::printf("CHECK FAILED: %s: %ld wrong elements\n", what, wrong);
    ++g_failures;
  }
}

// ---- Shared-memory throughput demos (lesson 03: stride sweep; lesson 02: column read) --------
void bench_smem() {
  int sms = 0, clock_khz = 0;
  CHECK_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  CHECK_CUDA(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
  const double peak_tbs = sms * 128.0 * clock_khz * 1e3 / 1e12;  // 128 B per clock per SM
  std::printf("# shared-memory peak: %d SMs x 128 B x %.2f GHz = %.1f TB/s\n", sms, clock_khz / 1e6,
              peak_tbs);
  const int blocks = g_profile ? sms : 16 * sms;
  const int iters = g_profile ? 64 : 4096;
  Buffer out(static_cast<size_t>(blocks) * 1024 * sizeof(float));
  char name[64];
  for (int stride : {1, 2, 3, 4, 8, 16, 32, 33}) {
    const double ms = time_ms(
        [&] { demo::shared_stride_throughput<<<blocks, 1024>>>(out.as<float>(), stride, iters); });
    const double bytes = 1.0 * blocks * 1024 * iters * 4;
    std::snprintf(name, sizeof name, "stride_%d", stride);
    if (!g_profile)
      record("smem-stride", name, ms, "TB/s", bytes / ms / 1e9, peak_tbs, "smem peak");
  }
  for (int pad : {0, 1}) {
    const double ms = time_ms([&] {
      if (pad == 0) {
        demo::shared_column_throughput<0><<<blocks, dim3(32, 32)>>>(out.as<float>(), iters);
      } else {
        demo::shared_column_throughput<1><<<blocks, dim3(32, 32)>>>(out.as<float>(), iters);
      }
    });
    const double bytes = 1.0 * blocks * 1024 * iters * 4;
    if (!g_profile) {
      record("smem-column", pad ? "tile[32][33]" : "tile[32][32]", ms, "TB/s", bytes / ms / 1e9,
             peak_tbs, "smem peak");
    }
  }
}

// ---- Transposes (lessons 04, 06, 07; exercise 02) --------------------------------------------
void bench_transposes() {
  const long n = g_profile ? 256 : 8192;
  Buffer in(n * n * 4), out(n * n * 4);
  fill_random<float>(in, 1);
  const double copy_ms = time_ms([&] {
    CHECK_CUDA(cudaMemcpyAsync(out.data(), in.data(), n * n * 4, cudaMemcpyDeviceToDevice));
  });
  const double copy_gbs = 2.0 * n * n * 4 / copy_ms / 1e6;
  if (!g_profile)
    record("transpose", "cudaMemcpy D2D", copy_ms, "GB/s", copy_gbs, copy_gbs, "memcpy");
  const dim3 grid((n + 31) / 32, (n + 31) / 32), block(32, 8);
  struct K {
    const char* name;
    void (*fn)(float*, const float*, int);
  } ks[] = {{"transpose_global (04 lesson)", base04::transpose_global},
            {"transpose_tiled_naive (04 base)", base04::transpose_tiled_naive},
            {"transpose_tiled (04 solution)", sol04::transpose_tiled},
            {"transpose_swizzled (corpus)", corpus::transpose_swizzled}};
  for (const auto& k : ks) {
    poison(out);
    const double ms = time_ms([&] { k.fn<<<grid, block>>>(out.as<float>(), in.as<float>(), n); });
    check_transpose<float>(k.name, in, out, n, n, 1);
    if (!g_profile)
      record("transpose", k.name, ms, "GB/s", 2.0 * n * n * 4 / ms / 1e6, copy_gbs, "memcpy");
  }
  // Tuned padded transposes (lesson 04, going further): tile and threads per tile.
  struct T {
    const char* name;
    void (*fn)(float*, const float*, int);
    int tile, rows;
  } tuned[] = {{"tuned<32,8>", fast::transpose_padded_tuned<32, 8>, 32, 8},
               {"tuned<32,16>", fast::transpose_padded_tuned<32, 16>, 32, 16},
               {"tuned<32,32>", fast::transpose_padded_tuned<32, 32>, 32, 32},
               {"tuned<64,4>", fast::transpose_padded_tuned<64, 4>, 64, 4},
               {"tuned<64,8>", fast::transpose_padded_tuned<64, 8>, 64, 8},
               {"tuned<64,16>", fast::transpose_padded_tuned<64, 16>, 64, 16}};
  for (const auto& k : tuned) {
    poison(out);
    const dim3 g((n + k.tile - 1) / k.tile, (n + k.tile - 1) / k.tile), b(k.tile, k.rows);
    const double ms = time_ms([&] { k.fn<<<g, b>>>(out.as<float>(), in.as<float>(), n); });
    check_transpose<float>(k.name, in, out, n, n, 1);
    if (!g_profile)
      record("transpose", k.name, ms, "GB/s", 2.0 * n * n * 4 / ms / 1e6, copy_gbs, "memcpy");
  }
  // Exercise 02: n x 32 -> 32 x n.
  const long rows = g_profile ? 1000 : (1L << 21);
  Buffer in2(rows * 32 * 4), out2(rows * 32 * 4);
  fill_random<float>(in2, 2);
  for (int v = 0; v < 2; ++v) {
    poison(out2);
    const double ms = time_ms([&] {
      if (v == 0) {
        base02::transpose_n_by_32_naive<<<(rows + 31) / 32, dim3(32, 32)>>>(out2.as<float>(),
                                                                            in2.as<float>(), rows);
      } else {
        sol02::transpose_n_by_32<<<(rows + 31) / 32, dim3(32, 32)>>>(out2.as<float>(),
                                                                     in2.as<float>(), rows);
      }
    });
    check_transpose<float>(v ? "ex02 solution" : "ex02 baseline", in2, out2, rows, 32, 1);
    if (!g_profile) {
      record("ex02", v ? "transpose_n_by_32 (solution)" : "transpose_n_by_32_naive (base)", ms,
             "GB/s", 2.0 * rows * 32 * 4 / ms / 1e6, copy_gbs, "memcpy");
    }
  }
  // Exercise 06: float4 elements, n4 x n4.
  const long n4 = g_profile ? 96 : 4096;
  Buffer in4(n4 * n4 * 16), out4(n4 * n4 * 16);
  fill_random<float>(in4, 3);
  for (int v = 0; v < 2; ++v) {
    poison(out4);
    const dim3 g4((n4 + 7) / 8, (n4 + 31) / 32), b4(8, 32);
    const double ms = time_ms([&] {
      if (v == 0) {
        base06::transpose_float4_naive<<<g4, b4>>>(out4.as<float4>(), in4.as<float4>(), n4);
      } else {
        sol06::transpose_float4<<<g4, b4>>>(out4.as<float4>(), in4.as<float4>(), n4);
      }
    });
    check_transpose<float>(v ? "ex06 solution" : "ex06 baseline", in4, out4, n4, n4, 4);
    if (!g_profile) {
      record("ex06", v ? "transpose_float4 (solution)" : "transpose_float4_naive (base)", ms,
             "GB/s", 2.0 * n4 * n4 * 16 / ms / 1e6, copy_gbs, "memcpy");
    }
  }
  // Exercise 07: doubles.
  const long nd = g_profile ? 200 : 8192;
  Buffer ind(nd * nd * 8), outd(nd * nd * 8);
  fill_random<double>(ind, 4);
  for (int v = 0; v < 2; ++v) {
    poison(outd);
    const dim3 gd((nd + 31) / 32, (nd + 31) / 32);
    const double ms = time_ms([&] {
      if (v == 0) {
        base07::transpose_double_naive<<<gd, block>>>(outd.as<double>(), ind.as<double>(), nd);
      } else {
        sol07::transpose_double<<<gd, block>>>(outd.as<double>(), ind.as<double>(), nd);
      }
    });
    check_transpose<double>(v ? "ex07 solution" : "ex07 baseline", ind, outd, nd, nd, 1);
    if (!g_profile) {
      record("ex07", v ? "transpose_double (solution)" : "transpose_double_naive (base)", ms,
             "GB/s", 2.0 * nd * nd * 8 / ms / 1e6, copy_gbs, "memcpy");
    }
  }
}

// ---- Exercise 03: complex neighbour differences ----------------------------------------------
void bench_complex() {
  const long n = g_profile ? 5000 : (1L << 26);
  Buffer in(2 * n * 4), out((n - 1) * 4);
  fill_random<float>(in, 5);
  std::vector<float> z(2 * n), ref(n - 1), got(n - 1);
  CHECK_CUDA(cudaMemcpy(z.data(), in.data(), in.bytes(), cudaMemcpyDeviceToHost));
  for (long i = 0; i + 1 < n; ++i) {
    const float dr = z[2 * i + 2] - z[2 * i], di = z[2 * i + 3] - z[2 * i + 1];
    ref[i] = dr * dr + di * di;
  }
  for (int v = 0; v < 2; ++v) {
    poison(out);
    const unsigned grid = static_cast<unsigned>((n - 1 + 255) / 256);
    const double ms = time_ms([&] {
      if (v == 0) {
        base03::complex_neighbour_diff_interleaved<<<grid, 256>>>(out.as<float>(), in.as<float>(),
                                                                  n);
      } else {
        sol03::complex_neighbour_diff<<<grid, 256>>>(out.as<float>(), in.as<float>(), n);
      }
    });
    CHECK_CUDA(cudaMemcpy(got.data(), out.data(), out.bytes(), cudaMemcpyDeviceToHost));
    long wrong = 0;
    for (long i = 0; i + 1 < n; ++i)
      wrong += !(std::fabs(got[i] - ref[i]) <= 1e-6f + 1e-5f * std::fabs(ref[i]));
    if (wrong) {
      std::printf("CHECK FAILED: ex03 %s: %ld wrong\n", v ? "solution" : "baseline", wrong);
      ++g_failures;
    }
    if (!g_profile) {
      record("ex03", v ? "complex_neighbour_diff (solution)" : "complex_..._interleaved (base)", ms,
             "GB/s", (2.0 * n * 4 + (n - 1) * 4.0) / ms / 1e6, 1.0, "-");
    }
  }
}

// ---- GEMM (lesson 05) against cuBLAS SGEMM, fp32 without TF32 ---------------------------------
void bench_gemm() {
  const int n = g_profile ? 128 : 4096;
  Buffer a(1L * n * n * 4), b(1L * n * n * 4), c(1L * n * n * 4), cref(1L * n * n * 4);
  fill_random<float>(a, 6);
  fill_random<float>(b, 7);
  cublasHandle_t h;
  cublasCreate(&h);
  cublasSetMathMode(h, CUBLAS_PEDANTIC_MATH);
  const float one = 1.0f, zero = 0.0f;
  // Row-major C = A * B^T is column-major C^T = B * A^T: sgemm(op(B)=B^T? ...): in column-major
  // terms A_cm = A^T (n x n), so C_cm = (A B^T)^T = B A^T = B_cm^T A_cm.
  const double flops = 2.0 * n * n * n;
  const double blas_ms = time_ms([&] {
    cublasSgemm(h, CUBLAS_OP_T, CUBLAS_OP_N, n, n, n, &one, b.as<float>(), n, a.as<float>(), n,
                &zero, cref.as<float>(), n);
  });
  const double blas_tf = flops / blas_ms / 1e9;
  if (!g_profile)
    record("gemm", "cublasSgemm (pedantic fp32)", blas_ms, "TFLOP/s", blas_tf, blas_tf, "cuBLAS");
  std::vector<float> r(1L * n * n), g(1L * n * n);
  CHECK_CUDA(cudaMemcpy(r.data(), cref.data(), cref.bytes(), cudaMemcpyDeviceToHost));
  const dim3 grid(n / 32, n / 32), block(32, 32);
  const char* names[] = {"gemm_abt_naive (05 base)", "gemm_abt (05 solution)",
                         "gemm_abt_register_blocked (05+)"};
  for (int v = 0; v < 3; ++v) {
    poison(c);
    const double ms = time_ms([&] {
      if (v == 0) {
        base05::gemm_abt_naive<<<grid, block>>>(c.as<float>(), a.as<float>(), b.as<float>(), n, n,
                                                n);
      } else if (v == 1) {
        sol05::gemm_abt<<<grid, block>>>(c.as<float>(), a.as<float>(), b.as<float>(), n, n, n);
      } else {
        fast05::gemm_abt_register_blocked<<<dim3(n / 128, n / 128), 256>>>(
            c.as<float>(), a.as<float>(), b.as<float>(), n, n, n);
      }
    });
    CHECK_CUDA(cudaMemcpy(g.data(), c.data(), c.bytes(), cudaMemcpyDeviceToHost));
    double num = 0, den = 0;
    for (long i = 0; i < 1L * n * n; ++i) {
      num += (g[i] - r[i]) * double(g[i] - r[i]);
      den += r[i] * double(r[i]);
    }
    const double rel = std::sqrt(num / den);
    if (!(rel < 1e-5)) {
      std::printf("CHECK FAILED: %s: relative error %.3g vs cuBLAS\n", names[v], rel);
      ++g_failures;
    }
    if (!g_profile) record("gemm", names[v], ms, "TFLOP/s", flops / ms / 1e9, blas_tf, "cuBLAS");
  }
  cublasDestroy(h);
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--profile") == 0) g_profile = true;
    if (std::strcmp(argv[i], "--json") == 0 && i + 1 < argc) g_json = std::fopen(argv[++i], "w");
  }
  cudaDeviceProp prop;
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  int driver = 0, runtime = 0;
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  std::printf("# %s, sm_%d%d, %d SMs, CUDA driver %d, runtime %d%s\n", prop.name, prop.major,
              prop.minor, prop.multiProcessorCount, driver, runtime,
              g_profile ? " (profile mode: one launch per kernel, small sizes)" : "");
  bench_smem();
  bench_transposes();
  bench_complex();
  bench_gemm();
  if (g_json != nullptr) std::fclose(g_json);
  std::printf("# checks: %s\n", g_failures == 0 ? "all results correct" : "FAILURES");
  return g_failures == 0 ? 0 : 1;
}
