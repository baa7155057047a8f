// fragment_loads.cu - how the H200 reads tensor-core fragments from shared memory: one-warp
// kernels that make exactly one wmma::load_matrix_sync / store_matrix_sync or one ldmatrix from a
// shared tile of a given row pitch and swizzle (read with ncu's shared-load counters), and a WMMA
// GEMM whose A and B tiles have a row of LDM halves (timed with CUDA events).
//   nvcc -O3 -std=c++17 -arch=sm_90 -lineinfo -o fragment_loads fragment_loads.cu
//   ./fragment_loads profile   (under ncu: every kernel once)
//   ./fragment_loads time      (the GEMMs at m = n = k = 4096)
//   ./fragment_loads gemm      (under ncu's SourceCounters: LDM 64 and 72 at m = n = k = 128)
#include <cuda_fp16.h>
#include <mma.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

using namespace nvcuda;

// ---- one wmma fragment load (or store) from a tile of 16 memory rows of LDM elements ----------
// KIND: 0 matrix_a row_major, 1 matrix_a col_major, 2 matrix_b row_major, 3 matrix_b col_major,
// 4 store_matrix_sync of a float accumulator (mem_row_major), 5 load_matrix_sync of one.
template <int LDM, int KIND>
__global__ void wmma_one(float* out) {
  __shared__ __align__(128) half tile[16 * LDM];
  __shared__ __align__(128) float ftile[16 * LDM];
  const int lane = threadIdx.x;
  if (KIND < 4) {
    for (int i = lane; i < 16 * LDM; i += 32) tile[i] = __float2half(static_cast<float>(i % 7));
  } else if (KIND == 5) {
    for (int i = lane; i < 16 * LDM; i += 32) ftile[i] = static_cast<float>(i % 7);
  }
  __syncthreads();
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
  wmma::fill_fragment(acc, 0.0f);
  if (KIND == 0 || KIND == 1) {
    using L = typename std::conditional<KIND == 0, wmma::row_major, wmma::col_major>::type;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, L> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> b;
    wmma::load_matrix_sync(a, tile, LDM);
    wmma::fill_fragment(b, __float2half(1.0f));
    wmma::mma_sync(acc, a, b, acc);
  } else if (KIND == 2 || KIND == 3) {
    using L = typename std::conditional<KIND == 2, wmma::row_major, wmma::col_major>::type;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, L> b;
    wmma::fill_fragment(a, __float2half(1.0f));
    wmma::load_matrix_sync(b, tile, LDM);
    wmma::mma_sync(acc, a, b, acc);
  } else if (KIND == 5) {
    wmma::load_matrix_sync(acc, ftile, LDM, wmma::mem_row_major);
  } else {
    wmma::fill_fragment(acc, static_cast<float>(lane));
    wmma::store_matrix_sync(ftile, acc, LDM, wmma::mem_row_major);
    __syncthreads();
    out[lane] = ftile[lane * 5 % (16 * LDM)];
    return;
  }
  wmma::store_matrix_sync(out, acc, 16, wmma::mem_row_major);
}

// ---- one ldmatrix (.x1/.x2/.x4, optionally .trans) -------------------------------------------
// Lane l gives the address of row l % 8 of matrix l / 8; matrix j is memory rows 8 (j % 2) ..
// 8 (j % 2) + 7 at 16-byte chunk j / 2 (the A-fragment order of mma.m16n8k16).
// SWZ: 0 none; 1 Swizzle<3,4,3> (byte bits 4-6 ^= bits 7-9); 2 Swizzle<2,4,3> (bits 4-5 ^= 7-8);
// 3 a wrong swizzle (bits 4-6 ^= bits 8-10, the row / 2 on 128-byte rows).
__device__ unsigned swizzle(unsigned off, int swz) {
  if (swz == 1) return off ^ (((off >> 7) & 7u) << 4);
  if (swz == 2) return off ^ (((off >> 7) & 3u) << 4);
  if (swz == 3) return off ^ (((off >> 8) & 7u) << 4);
  return off;
}

template <int PITCH, int SWZ, int NUM, int TRANS>
__global__ void ldsm_one(unsigned* out) {
  __shared__ __align__(1024) half tile[16 * 128];
  const int lane = threadIdx.x;
  for (int i = lane; i < 16 * 128; i += 32) tile[i] = __float2half(static_cast<float>(i % 13));
  __syncthreads();
  const int j = lane / 8, r = lane % 8 + 8 * (j % 2), c = j / 2;
  const unsigned off = swizzle(static_cast<unsigned>(r * PITCH * 2 + c * 16), SWZ);
  const unsigned addr = static_cast<unsigned>(__cvta_generic_to_shared(tile)) + off;
  unsigned x0 = 0, x1 = 0, x2 = 0, x3 = 0;
  if (NUM == 1 && !TRANS)
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(x0) : "r"(addr));
  if (NUM == 2 && !TRANS)
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];"
                 : "=r"(x0), "=r"(x1)
                 : "r"(addr));
  if (NUM == 4 && !TRANS)
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                 : "=r"(x0), "=r"(x1), "=r"(x2), "=r"(x3)
                 : "r"(addr));
  if (NUM == 4 && TRANS)
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];"
                 : "=r"(x0), "=r"(x1), "=r"(x2), "=r"(x3)
                 : "r"(addr));
  out[lane] = x0 ^ x1 ^ x2 ^ x3;
}

// ---- a WMMA GEMM, C = A B^T (A m x k, B n x k, row-major floats), tiles of LDM halves a row --
template <int LDM>
__global__ void __launch_bounds__(128)
    gemm_wmma(float* c, const float* a, const float* b, int m, int n, int k) {
  __shared__ __align__(128) half as[64 * LDM];
  __shared__ __align__(128) half bs[64 * LDM];
  const int t = threadIdx.x, warp = t / 32;
  const int row0 = blockIdx.y * 64, col0 = blockIdx.x * 64;
  const int wm = (warp / 2) * 32, wn = (warp % 2) * 32;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[2][2];
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j) wmma::fill_fragment(acc[i][j], 0.0f);
  for (int k0 = 0; k0 < k; k0 += 64) {
    for (int i = t; i < 64 * 8; i += 128) {
      const int r = i / 8, ch = i % 8;
      const float4* pa = reinterpret_cast<const float4*>(a + (size_t)(row0 + r) * k + k0 + ch * 8);
      const float4* pb = reinterpret_cast<const float4*>(b + (size_t)(col0 + r) * k + k0 + ch * 8);
      float4 x = pa[0], y = pa[1];
      half2 h[4] = {__floats2half2_rn(x.x, x.y), __floats2half2_rn(x.z, x.w),
                    __floats2half2_rn(y.x, y.y), __floats2half2_rn(y.z, y.w)};
      *reinterpret_cast<uint4*>(&as[r * LDM + ch * 8]) = *reinterpret_cast<uint4*>(h);
      x = pb[0];
      y = pb[1];
      half2 g[4] = {__floats2half2_rn(x.x, x.y), __floats2half2_rn(x.z, x.w),
                    __floats2half2_rn(y.x, y.y), __floats2half2_rn(y.z, y.w)};
      *reinterpret_cast<uint4*>(&bs[r * LDM + ch * 8]) = *reinterpret_cast<uint4*>(g);
    }
    __syncthreads();
    for (int kk = 0; kk < 64; kk += 16) {
      wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa[2];
      wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb[2];
      for (int i = 0; i < 2; ++i) wmma::load_matrix_sync(fa[i], &as[(wm + 16 * i) * LDM + kk], LDM);
      for (int j = 0; j < 2; ++j) wmma::load_matrix_sync(fb[j], &bs[(wn + 16 * j) * LDM + kk], LDM);
      for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j) wmma::mma_sync(acc[i][j], fa[i], fb[j], acc[i][j]);
    }
    __syncthreads();
  }
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j)
      wmma::store_matrix_sync(c + (size_t)(row0 + wm + 16 * i) * n + col0 + wn + 16 * j, acc[i][j],
                              n, wmma::mem_row_major);
}

#define CK(x)                                                                         \
  do {                                                                                \
    cudaError_t e_ = (x);                                                             \
    if (e_ != cudaSuccess) {                                                          \
      std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      std::exit(1);                                                                   \
    }                                                                                 \
  } while (0)

template <int LDM>
void wmma_all(float* out) {
  wmma_one<LDM, 0><<<1, 32>>>(out);
  wmma_one<LDM, 1><<<1, 32>>>(out);
  wmma_one<LDM, 2><<<1, 32>>>(out);
  wmma_one<LDM, 3><<<1, 32>>>(out);
  wmma_one<LDM, 4><<<1, 32>>>(out);
  wmma_one<LDM, 5><<<1, 32>>>(out);
}

template <int PITCH, int SWZ>
void ldsm_all(unsigned* out) {
  ldsm_one<PITCH, SWZ, 1, 0><<<1, 32>>>(out);
  ldsm_one<PITCH, SWZ, 2, 0><<<1, 32>>>(out);
  ldsm_one<PITCH, SWZ, 4, 0><<<1, 32>>>(out);
  ldsm_one<PITCH, SWZ, 4, 1><<<1, 32>>>(out);
}

// Inputs that half represents exactly (multiples of 1/8 in [-1, 1]): every product and sum of
// the GEMM is exact in float, so the GPU must equal the CPU bit for bit.
void fill(std::vector<float>& v, unsigned seed) {
  for (auto& x : v) {
    seed = seed * 1664525u + 1013904223u;
    x = static_cast<float>(static_cast<int>((seed >> 16) % 17) - 8) / 8.0f;
  }
}

template <int LDM>
double run_gemm(int s, int reps, bool check) {
  std::vector<float> ha((size_t)s * s), hb((size_t)s * s), hc((size_t)s * s);
  fill(ha, 1);
  fill(hb, 2);
  float *a, *b, *c;
  CK(cudaMalloc(&a, ha.size() * 4));
  CK(cudaMalloc(&b, hb.size() * 4));
  CK(cudaMalloc(&c, hc.size() * 4));
  CK(cudaMemcpy(a, ha.data(), ha.size() * 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(b, hb.data(), hb.size() * 4, cudaMemcpyHostToDevice));
  dim3 grid(s / 64, s / 64);
  gemm_wmma<LDM><<<grid, 128>>>(c, a, b, s, s, s);
  CK(cudaDeviceSynchronize());
  if (check) {
    CK(cudaMemcpy(hc.data(), c, hc.size() * 4, cudaMemcpyDeviceToHost));
    long bad = 0;
    for (int i = 0; i < s; ++i)
      for (int j = 0; j < s; ++j) {
        float acc = 0;
        for (int q = 0; q < s; ++q) acc += ha[(size_t)i * s + q] * hb[(size_t)j * s + q];
        bad += acc != hc[(size_t)i * s + j];
      }
    std::printf("gemm_wmma<%d> %d^3: %ld wrong\n", LDM, s, bad);
  }
  double best = 1e30;
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  for (int r = 0; r < reps; ++r) {
    CK(cudaEventRecord(e0));
    gemm_wmma<LDM><<<grid, 128>>>(c, a, b, s, s, s);
    CK(cudaEventRecord(e1));
    CK(cudaEventSynchronize(e1));
    float ms;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    if (ms < best) best = ms;
  }
  CK(cudaFree(a));
  CK(cudaFree(b));
  CK(cudaFree(c));
  return best;
}

int main(int argc, char** argv) {
  const bool timing = argc > 1 && std::strcmp(argv[1], "time") == 0;
  if (argc > 1 && std::strcmp(argv[1], "gemm") == 0) {
    run_gemm<64>(128, 0, true);
    run_gemm<72>(128, 0, true);
    return 0;
  }
  if (!timing) {
    float* out;
    unsigned* uout;
    CK(cudaMalloc(&out, 16 * 256 * 4));
    CK(cudaMalloc(&uout, 32 * 4));
    wmma_all<16>(out);
    wmma_all<24>(out);
    wmma_all<32>(out);
    wmma_all<40>(out);
    wmma_all<64>(out);
    wmma_all<72>(out);
    wmma_all<80>(out);
    wmma_all<128>(out);
    ldsm_all<16, 0>(uout);
    ldsm_all<32, 0>(uout);
    ldsm_all<32, 2>(uout);
    ldsm_all<64, 0>(uout);
    ldsm_all<64, 1>(uout);
    ldsm_all<64, 3>(uout);
    ldsm_all<72, 0>(uout);
    ldsm_all<128, 0>(uout);
    CK(cudaDeviceSynchronize());
    run_gemm<64>(128, 0, true);  // m = n = k = 128: 4 blocks, 2 slabs of k
    run_gemm<72>(128, 0, true);
    run_gemm<80>(128, 0, true);
    return 0;
  }
  for (int s : {2048, 4096}) {
    const double flop = 2.0 * s * s * (double)s;
    const double t64 = run_gemm<64>(s, 10, s == 2048 ? false : false);
    const double t72 = run_gemm<72>(s, 10, false);
    const double t80 = run_gemm<80>(s, 10, false);
    const double t88 = run_gemm<88>(s, 10, false);
    std::printf(
        "size %d: ldm64 %.3f ms (%.1f TFLOP/s)  ldm72 %.3f ms (%.1f)  ldm80 %.3f ms (%.1f)  "
        "ldm88 %.3f ms (%.1f)  speedup 72/64 %.3fx\n",
        s, t64, flop / t64 / 1e9, t72, flop / t72 / 1e9, t80, flop / t80 / 1e9, t88,
        flop / t88 / 1e9, t64 / t72);
  }
  run_gemm<64>(512, 0, true);
  run_gemm<72>(512, 0, true);
  return 0;
}
