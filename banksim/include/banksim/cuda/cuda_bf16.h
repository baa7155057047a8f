// cuda_bf16.h under banksim: CUDA's bfloat16 types and their most used intrinsics, for code
// written for nvcc. `__nv_bfloat16` is 2 bytes (the top half of a float), `__nv_bfloat162` 4;
// arithmetic is done in float and rounded once to nearest even.
#pragma once

#include <cstdint>
#include <cstring>

#include "cuda_fp16.h"

namespace banksim_bf16 {
inline unsigned short from_float(float f) {
  std::uint32_t x;
  std::memcpy(&x, &f, sizeof x);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<unsigned short>((x >> 16) | 0x40u);
  x += 0x7fffu + ((x >> 16) & 1u);  // round to nearest even
  return static_cast<unsigned short>(x >> 16);
}
inline float to_float(unsigned short b) {
  const std::uint32_t x = static_cast<std::uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &x, sizeof f);
  return f;
}
}  // namespace banksim_bf16

struct __nv_bfloat16_raw {
  unsigned short x;
};

struct alignas(2) __nv_bfloat16 {
  unsigned short __x;
  __nv_bfloat16() = default;
  __host__ __device__ __nv_bfloat16(float f) : __x(banksim_bf16::from_float(f)) {}
  __host__ __device__ __nv_bfloat16(double f)
      : __x(banksim_bf16::from_float(static_cast<float>(f))) {}
  __host__ __device__ __nv_bfloat16(__nv_bfloat16_raw r) : __x(r.x) {}
  __host__ __device__ operator float() const { return banksim_bf16::to_float(__x); }
};
typedef __nv_bfloat16 nv_bfloat16;

struct alignas(4) __nv_bfloat162 {
  __nv_bfloat16 x, y;
  __nv_bfloat162() = default;
  __host__ __device__ __nv_bfloat162(__nv_bfloat16 a, __nv_bfloat16 b) : x(a), y(b) {}
};
typedef __nv_bfloat162 nv_bfloat162;

__host__ __device__ inline __nv_bfloat16 __float2bfloat16(float f) {
  return __nv_bfloat16(f);
}
__host__ __device__ inline __nv_bfloat16 __float2bfloat16_rn(float f) {
  return __nv_bfloat16(f);
}
__host__ __device__ inline float __bfloat162float(__nv_bfloat16 b) {
  return float(b);
}
__host__ __device__ inline __nv_bfloat162 __floats2bfloat162_rn(float a, float b) {
  return __nv_bfloat162(__nv_bfloat16(a), __nv_bfloat16(b));
}
__host__ __device__ inline float __low2float(__nv_bfloat162 b) {
  return float(b.x);
}
__host__ __device__ inline float __high2float(__nv_bfloat162 b) {
  return float(b.y);
}
__host__ __device__ inline __nv_bfloat16 __hadd(__nv_bfloat16 a, __nv_bfloat16 b) {
  return __nv_bfloat16(float(a) + float(b));
}
__host__ __device__ inline __nv_bfloat16 __hmul(__nv_bfloat16 a, __nv_bfloat16 b) {
  return __nv_bfloat16(float(a) * float(b));
}
__host__ __device__ inline __nv_bfloat16 __hfma(__nv_bfloat16 a, __nv_bfloat16 b, __nv_bfloat16 c) {
  return __nv_bfloat16(__builtin_fmaf(float(a), float(b), float(c)));
}
__host__ __device__ inline __nv_bfloat162 __hadd2(__nv_bfloat162 a, __nv_bfloat162 b) {
  return __nv_bfloat162(__hadd(a.x, b.x), __hadd(a.y, b.y));
}
__host__ __device__ inline __nv_bfloat162 __hmul2(__nv_bfloat162 a, __nv_bfloat162 b) {
  return __nv_bfloat162(__hmul(a.x, b.x), __hmul(a.y, b.y));
}
__host__ __device__ inline __nv_bfloat162 __hfma2(__nv_bfloat162 a, __nv_bfloat162 b,
                                                  __nv_bfloat162 c) {
  return __nv_bfloat162(__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y));
}
__host__ __device__ inline __nv_bfloat16 operator+(__nv_bfloat16 a, __nv_bfloat16 b) {
  return __hadd(a, b);
}
__host__ __device__ inline __nv_bfloat16 operator*(__nv_bfloat16 a, __nv_bfloat16 b) {
  return __hmul(a, b);
}
