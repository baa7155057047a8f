// Half and bfloat16 kernels written for nvcc (they include CUDA's headers): banksim runs them
// with the GPU's 2- and 4-byte shared accesses.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

// A block sums 64 halves as 32 half2 in shared memory: lane t reads word t, conflict-free.
__global__ void half2_sum(float* out, const float* in) {
  __shared__ half2 s[32];
  const int t = threadIdx.x;
  s[t] = __floats2half2_rn(in[2 * t], in[2 * t + 1]);
  __syncthreads();
  half2 v = s[t];  // @h2read
  for (int d = 16; d > 0; d /= 2) v = __hadd2(v, __shfl_down_sync(0xffffffffu, v, d));
  if (t == 0) out[0] = __low2float(v) + __high2float(v);
}

// 2-byte elements, one column of a 32 x 32 tile of halves: lane t reads half 32 t, word 16 t,
// bank 16 t mod 32: lanes alternate between banks 0 and 16, 16 distinct words each: 16-way.
__global__ void half_column(float* out) {
  __shared__ __half tile[32][32];
  const int t = threadIdx.x;
  for (int i = 0; i < 32; ++i) tile[i][t] = __float2half(static_cast<float>(i + t));
  __syncthreads();
  const __half h = tile[t][0];  // @hcolumn
  out[t] = __half2float(h);
}

// bfloat16 round trip and fma.
__global__ void bf16_fma(float* out, const float* in) {
  const int t = threadIdx.x;
  const __nv_bfloat16 a = __float2bfloat16(in[t]);
  out[t] = __bfloat162float(__hfma(a, a, __float2bfloat16(1.0f)));
}

// float -> half -> float, per lane (the conversions' rounding).
__global__ void half_round(float* out, const float* in) {
  out[threadIdx.x] = __half2float(__float2half(in[threadIdx.x]));
}
