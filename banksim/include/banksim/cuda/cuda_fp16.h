// cuda_fp16.h under banksim: CUDA's half-precision types and the intrinsics kernels use most,
// for code written for nvcc. `__half` is 2 bytes and `__half2` 4 bytes (aligned to their size, as
// in CUDA), so their shared-memory accesses have the GPU's widths and banks. Arithmetic is done
// in float and rounded once to half (round to nearest even), which is what the GPU computes for
// conversions, and for +, -, * and fma except in rare double-rounding cases (the last bit).
#pragma once

#include <cstdint>
#include <cstring>

namespace banksim_fp16 {
/// float -> IEEE binary16 bits, round to nearest even (overflow to infinity, NaN kept).
inline unsigned short from_float(float f) {
  std::uint32_t x;
  std::memcpy(&x, &f, sizeof x);
  const std::uint32_t sign = (x >> 16) & 0x8000u;
  const std::uint32_t abs = x & 0x7fffffffu;
  if (abs > 0x7f800000u) return static_cast<unsigned short>(sign | 0x7e00u);   // NaN
  if (abs >= 0x477ff000u) return static_cast<unsigned short>(sign | 0x7c00u);  // >= 65520: inf
  if (abs < 0x38800000u) {  // below 2^-14: a subnormal half (or zero)
    if (abs < 0x33000000u) return static_cast<unsigned short>(sign);  // below half of 2^-24
    const std::uint32_t e = abs >> 23;
    const std::uint32_t m = (abs & 0x7fffffu) | 0x800000u;
    const std::uint32_t shift = 126u - e;  // 14 + 23 - 10 - (e - 127) + ... : to units of 2^-24
    std::uint32_t h = m >> shift;
    const std::uint32_t rest = m & ((1u << shift) - 1u), half = 1u << (shift - 1u);
    if (rest > half || (rest == half && (h & 1u) != 0)) ++h;
    return static_cast<unsigned short>(sign | h);
  }
  std::uint32_t h = ((abs >> 13) - (112u << 10));  // rebias the exponent 127 -> 15
  const std::uint32_t rest = abs & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1u) != 0)) ++h;
  return static_cast<unsigned short>(sign | h);
}
/// IEEE binary16 bits -> float (exact).
inline float to_float(unsigned short h) {
  const std::uint32_t sign = (static_cast<std::uint32_t>(h) & 0x8000u) << 16;
  const std::uint32_t e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
  std::uint32_t x;
  if (e == 0x1fu) {
    x = sign | 0x7f800000u | (m << 13);
  } else if (e != 0) {
    x = sign | ((e + 112u) << 23) | (m << 13);
  } else if (m == 0) {
    x = sign;
  } else {  // subnormal: m * 2^-24
    float f = static_cast<float>(m) * (1.0f / 16777216.0f);
    return sign != 0 ? -f : f;
  }
  float f;
  std::memcpy(&f, &x, sizeof f);
  return f;
}
}  // namespace banksim_fp16

struct __half_raw {
  unsigned short x;
};

struct alignas(2) __half {
  unsigned short __x;
  __half() = default;
  __host__ __device__ __half(float f) : __x(banksim_fp16::from_float(f)) {}
  __host__ __device__ __half(double f) : __x(banksim_fp16::from_float(static_cast<float>(f))) {}
  __host__ __device__ __half(int i) : __x(banksim_fp16::from_float(static_cast<float>(i))) {}
  __host__ __device__ __half(__half_raw r) : __x(r.x) {}
  __host__ __device__ operator float() const { return banksim_fp16::to_float(__x); }
};
typedef __half half;

struct alignas(4) __half2 {
  __half x, y;
  __half2() = default;
  __host__ __device__ __half2(__half a, __half b) : x(a), y(b) {}
};
typedef __half2 half2;

// ---- Conversions ----------------------------------------------------------------------------
__host__ __device__ inline __half __float2half(float f) {
  return __half(f);
}
__host__ __device__ inline __half __float2half_rn(float f) {
  return __half(f);
}
__host__ __device__ inline float __half2float(__half h) {
  return static_cast<float>(h);
}
__host__ __device__ inline __half __int2half_rn(int i) {
  return __half(static_cast<float>(i));
}
__host__ __device__ inline int __half2int_rz(__half h) {
  return static_cast<int>(float(h));
}
__host__ __device__ inline __half2 __floats2half2_rn(float a, float b) {
  return __half2(__half(a), __half(b));
}
__host__ __device__ inline __half2 __float2half2_rn(float a) {
  return __half2(__half(a), __half(a));
}
__host__ __device__ inline __half2 __float22half2_rn(float2 f) {
  return __half2(__half(f.x), __half(f.y));
}
__host__ __device__ inline float2 __half22float2(__half2 h) {
  return make_float2(float(h.x), float(h.y));
}
__host__ __device__ inline float __low2float(__half2 h) {
  return float(h.x);
}
__host__ __device__ inline float __high2float(__half2 h) {
  return float(h.y);
}
__host__ __device__ inline __half __low2half(__half2 h) {
  return h.x;
}
__host__ __device__ inline __half __high2half(__half2 h) {
  return h.y;
}
__host__ __device__ inline __half2 __halves2half2(__half a, __half b) {
  return __half2(a, b);
}
__host__ __device__ inline __half2 __half2half2(__half a) {
  return __half2(a, a);
}
__host__ __device__ inline __half2 __lows2half2(__half2 a, __half2 b) {
  return __half2(a.x, b.x);
}
__host__ __device__ inline __half2 __highs2half2(__half2 a, __half2 b) {
  return __half2(a.y, b.y);
}
__host__ __device__ inline unsigned short __half_as_ushort(__half h) {
  return h.__x;
}
__host__ __device__ inline __half __ushort_as_half(unsigned short u) {
  return __half(__half_raw{u});
}

// ---- Arithmetic (in float, rounded once) ------------------------------------------------------
__host__ __device__ inline __half __hadd(__half a, __half b) {
  return __half(float(a) + float(b));
}
__host__ __device__ inline __half __hsub(__half a, __half b) {
  return __half(float(a) - float(b));
}
__host__ __device__ inline __half __hmul(__half a, __half b) {
  return __half(float(a) * float(b));
}
__host__ __device__ inline __half __hdiv(__half a, __half b) {
  return __half(float(a) / float(b));
}
__host__ __device__ inline __half __hneg(__half a) {
  return __half(__half_raw{static_cast<unsigned short>(a.__x ^ 0x8000u)});
}
__host__ __device__ inline __half __habs(__half a) {
  return __half(__half_raw{static_cast<unsigned short>(a.__x & 0x7fffu)});
}
__host__ __device__ inline __half __hfma(__half a, __half b, __half c) {
  return __half(__builtin_fmaf(float(a), float(b), float(c)));
}
__host__ __device__ inline __half __hmax(__half a, __half b) {
  return float(a) >= float(b) ? a : b;
}
__host__ __device__ inline __half __hmin(__half a, __half b) {
  return float(a) <= float(b) ? a : b;
}
__host__ __device__ inline bool __heq(__half a, __half b) {
  return float(a) == float(b);
}
__host__ __device__ inline bool __hne(__half a, __half b) {
  return float(a) != float(b);
}
__host__ __device__ inline bool __hlt(__half a, __half b) {
  return float(a) < float(b);
}
__host__ __device__ inline bool __hle(__half a, __half b) {
  return float(a) <= float(b);
}
__host__ __device__ inline bool __hgt(__half a, __half b) {
  return float(a) > float(b);
}
__host__ __device__ inline bool __hge(__half a, __half b) {
  return float(a) >= float(b);
}
__host__ __device__ inline bool __hisnan(__half a) {
  return (a.__x & 0x7fffu) > 0x7c00u;
}

#define BANKSIM_HALF2_OP(name, op)                                \
  __host__ __device__ inline __half2 name(__half2 a, __half2 b) { \
    return __half2(op(a.x, b.x), op(a.y, b.y));                   \
  }
BANKSIM_HALF2_OP(__hadd2, __hadd)
BANKSIM_HALF2_OP(__hsub2, __hsub)
BANKSIM_HALF2_OP(__hmul2, __hmul)
BANKSIM_HALF2_OP(__h2div, __hdiv)
BANKSIM_HALF2_OP(__hmax2, __hmax)
BANKSIM_HALF2_OP(__hmin2, __hmin)
#undef BANKSIM_HALF2_OP
__host__ __device__ inline __half2 __hfma2(__half2 a, __half2 b, __half2 c) {
  return __half2(__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y));
}
__host__ __device__ inline __half2 __hneg2(__half2 a) {
  return __half2(__hneg(a.x), __hneg(a.y));
}
__host__ __device__ inline __half2 __habs2(__half2 a) {
  return __half2(__habs(a.x), __habs(a.y));
}

// Operators, as cuda_fp16.hpp gives them to device code.
__host__ __device__ inline __half operator+(__half a, __half b) {
  return __hadd(a, b);
}
__host__ __device__ inline __half operator-(__half a, __half b) {
  return __hsub(a, b);
}
__host__ __device__ inline __half operator*(__half a, __half b) {
  return __hmul(a, b);
}
__host__ __device__ inline __half operator/(__half a, __half b) {
  return __hdiv(a, b);
}
__host__ __device__ inline __half operator-(__half a) {
  return __hneg(a);
}
__host__ __device__ inline __half& operator+=(__half& a, __half b) {
  return a = __hadd(a, b);
}
__host__ __device__ inline __half& operator-=(__half& a, __half b) {
  return a = __hsub(a, b);
}
__host__ __device__ inline __half& operator*=(__half& a, __half b) {
  return a = __hmul(a, b);
}
__host__ __device__ inline __half2 operator+(__half2 a, __half2 b) {
  return __hadd2(a, b);
}
__host__ __device__ inline __half2 operator-(__half2 a, __half2 b) {
  return __hsub2(a, b);
}
__host__ __device__ inline __half2 operator*(__half2 a, __half2 b) {
  return __hmul2(a, b);
}
__host__ __device__ inline __half2& operator+=(__half2& a, __half2 b) {
  return a = __hadd2(a, b);
}
__host__ __device__ inline __half2& operator*=(__half2& a, __half2 b) {
  return a = __hmul2(a, b);
}
