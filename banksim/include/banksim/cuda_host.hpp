// banksim/cuda_host.hpp - CUDA for the CPU: force-included (clang++ -include) before a student's
// .cu file when banksim compiles it as host C++. Defines the CUDA keywords, built-in variables,
// vector types, intrinsics, atomics and warp functions that the course's kernels use, on top of
// the emulator's runtime (libbanksim_runtime). Every thread of a launch runs as a fiber; shared
// memory lives in one linker section so that every access to it can be traced.
//
// Anything not provided here fails to compile with a message naming it (see the static_asserts
// and `banksim_unsupported` at the end). Only clang can compile this header: it relies on clang's
// ext_vector_type and on the AddressSanitizer callbacks that trace loads and stores.
// Over 600 lines: the one header clang force-includes and precompiles per module's flags, so the
// device surface a kernel sees is declared in it whole (the host runtime is cuda_host_api.hpp).
#pragma once

#if !defined(__clang__)
#error "banksim compiles kernels with clang++ (apt-get install clang); gcc lacks the features used"
#endif

// Standard headers first: the macros below (e.g. __noinline__) must not reach libstdc++. Every
// standard header a submission may include (grader/src/policy.cpp's allowlist) is here, so that a
// file's own #include of it later is a no-op instead of a clash with those macros; so is every
// libstdc++ header that spells __attribute__((__noinline__)) which those reach: <string> (GCC
// 13 and later's basic_string.h; libcu++'s <cuda/std/...> headers include <iterator>, which
// includes it) and <memory> (shared_ptr_base.h). `make platform-libstdcxx` checks both with GCC
// 13's and 14's headers.
#include <algorithm>
#include <array>
#include <cfloat>
#include <climits>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <limits>
#include <memory>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
// C's <math.h> as well: nvcc's cuda_runtime.h brings isfinite, isnan, signbit... into the global
// namespace (math_functions.h), and code written for it calls them unqualified.
#include <math.h>

#include "banksim/abi.hpp"
#include "banksim/cuda_types.hpp"
#include "banksim/kernel_entry.hpp"

// ---- Keywords -------------------------------------------------------------------------------
#define __global__
#define __device__
#define __host__
#define __constant__
#define __managed__
#define __forceinline__ inline __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __align__(n) __attribute__((aligned(n)))
#define __launch_bounds__(...)
#define __grid_constant__

// Every block-shared variable goes into one section, in declaration order (`used`), each after a
// 128-byte red zone that banksim's source rewrite inserts (BANKSIM_REDZONE) so that an overflow
// into the next variable is caught. 128-byte alignment puts each variable's start on bank 0.
#define BANKSIM_SECTION __attribute__((section("banksim_shared"), used))
#define __shared__ static BANKSIM_SECTION __attribute__((aligned(128)))
#define BANKSIM_REDZONE_(n) \
  static BANKSIM_SECTION __attribute__((aligned(128))) unsigned char banksim_redzone_##n[128];
#define BANKSIM_REDZONE(n) BANKSIM_REDZONE_(n)

// The dynamic shared memory of a launch (`extern __shared__ T x[];` is rewritten to a pointer to
// this). Defined by the stub banksim appends to the file, at the end of the section.
extern "C" unsigned char banksim_dynamic_smem[];

// ---- Built-in variables ---------------------------------------------------------------------
// Globals that the scheduler sets before it resumes each thread's fiber; read-only to a kernel,
// as on the GPU (nvcc refuses `blockDim.x = 1`; so does banksim), which also lets the compiler
// keep a value across a barrier instead of reading it again.
extern "C" {
extern const uint3 threadIdx;
extern const uint3 blockIdx;
extern const dim3 blockDim;
extern const dim3 gridDim;
}
// threadIdx and blockIdx are read all the time (a transpose reads them more often than it
// touches memory): on x86-64 a kernel reads them with an instruction the tracer does not see, and
// once per function, as the GPU reads a special register (their values never change under a
// running thread). blockDim and gridDim stay (const) variables: host code names its own `dim3
// blockDim(16, 16)`, which a macro would break; the tracer lets reads of them go first thing.
#if defined(__x86_64__)
#define BANKSIM_READ_BUILTIN_(name)                                     \
  unsigned x, y, z;                                                     \
  const void* p;                                                        \
  __asm__("movq " name                                                  \
          "@GOTPCREL(%%rip), %3\n\tmovl (%3), %0\n\tmovl 4(%3), %1\n\t" \
          "movl 8(%3), %2"                                              \
          : "=r"(x), "=r"(y), "=r"(z), "=&r"(p));                       \
  return uint3{x, y, z};
__attribute__((always_inline)) inline uint3 banksim_builtin_threadIdx() {
  BANKSIM_READ_BUILTIN_("threadIdx")
}
__attribute__((always_inline)) inline uint3 banksim_builtin_blockIdx() {
  BANKSIM_READ_BUILTIN_("blockIdx")
}
#undef BANKSIM_READ_BUILTIN_
#define threadIdx (::banksim_builtin_threadIdx())
#define blockIdx (::banksim_builtin_blockIdx())
#endif
constexpr int warpSize = 32;

// ---- Runtime entry points (libbanksim_runtime): banksim/abi.hpp ---------------------------

__attribute__((always_inline)) inline void __syncthreads() {
  banksim_syncthreads();
}
__attribute__((always_inline)) inline int __syncthreads_count(int p) {
  return banksim_syncthreads_count(p);
}
__attribute__((always_inline)) inline int __syncthreads_and(int p) {
  return banksim_syncthreads_count(p != 0) ==
         static_cast<int>(blockDim.x * blockDim.y * blockDim.z);
}
__attribute__((always_inline)) inline int __syncthreads_or(int p) {
  return banksim_syncthreads_count(p != 0) != 0;
}
__attribute__((always_inline)) inline void __syncwarp(unsigned mask = 0xffffffffu) {
  banksim_syncwarp(mask);
}
[[noreturn]] inline void __trap() {
  __builtin_trap();
}
inline void __threadfence_block() {}
inline void __threadfence() {}

// ---- Vector types: all of CUDA 13's vector_types.h, with nvcc's sizes and alignments -----------
// (tests/corpus/vector_types_all.cu checks every one against nvcc's). The 2- and 4-component
// types of up to 16 bytes are clang ext vectors (.x .y .z .w): a copy of one is then one 2-, 4-, 8-
// or 16-byte load or store, as nvcc's LDS.64/LDS.128 (clang splits a struct into its fields).
// The 1- and 3-component types and the 32-byte 4-component ones are structs, as in CUDA (a
// 3-component ext vector would be padded to 4). uint3 and dim3: banksim/cuda_types.hpp.
#define BANKSIM_VEC_EXT2(name, T)                        \
  typedef T name##2 __attribute__((ext_vector_type(2))); \
  inline name##2 make_##name##2(T x, T y) {              \
    return name##2 {x, y};                               \
  }
#define BANKSIM_VEC_EXT4(name, T)                        \
  typedef T name##4 __attribute__((ext_vector_type(4))); \
  inline name##4 make_##name##4(T x, T y, T z, T w) {    \
    return name##4 {x, y, z, w};                         \
  }
#define BANKSIM_VEC1(name, T)          \
  struct name##1 {                     \
    T x;                               \
  };                                   \
  inline name##1 make_##name##1(T x) { \
    return name##1 {x};                \
  }
#define BANKSIM_VEC3(name, T)                    \
  struct name##3 {                               \
    T x, y, z;                                   \
  };                                             \
  inline name##3 make_##name##3(T x, T y, T z) { \
    return name##3 {x, y, z};                    \
  }
#define BANKSIM_VEC4_STRUCT(type, T, align)     \
  struct alignas(align) type {                  \
    T x, y, z, w;                               \
  };                                            \
  inline type make_##type(T x, T y, T z, T w) { \
    return type{x, y, z, w};                    \
  }
#define BANKSIM_VEC_SMALL(name, T) \
  BANKSIM_VEC1(name, T) BANKSIM_VEC_EXT2(name, T) BANKSIM_VEC3(name, T) BANKSIM_VEC_EXT4(name, T)
#define BANKSIM_VEC_WIDE(name, T)     \
  BANKSIM_VEC1(name, T)               \
  BANKSIM_VEC_EXT2(name, T)           \
  BANKSIM_VEC3(name, T)               \
  BANKSIM_VEC4_STRUCT(name##4, T, 16) \
  BANKSIM_VEC4_STRUCT(name##4_16a, T, 16) BANKSIM_VEC4_STRUCT(name##4_32a, T, 32)
BANKSIM_VEC_SMALL(char, signed char)
BANKSIM_VEC_SMALL(uchar, unsigned char)
BANKSIM_VEC_SMALL(short, short)
BANKSIM_VEC_SMALL(ushort, unsigned short)
BANKSIM_VEC_SMALL(int, int)
BANKSIM_VEC1(uint, unsigned)
BANKSIM_VEC_EXT2(uint, unsigned)
BANKSIM_VEC_EXT4(uint, unsigned)
inline uint3 make_uint3(unsigned x, unsigned y, unsigned z) {
  return uint3{x, y, z};
}
BANKSIM_VEC_SMALL(float, float)
BANKSIM_VEC_WIDE(long, long)
BANKSIM_VEC_WIDE(ulong, unsigned long)
BANKSIM_VEC_WIDE(longlong, long long)
BANKSIM_VEC_WIDE(ulonglong, unsigned long long)
BANKSIM_VEC_WIDE(double, double)
#undef BANKSIM_VEC_EXT2
#undef BANKSIM_VEC_EXT4
#undef BANKSIM_VEC1
#undef BANKSIM_VEC3
#undef BANKSIM_VEC4_STRUCT
#undef BANKSIM_VEC_SMALL
#undef BANKSIM_VEC_WIDE
static_assert(sizeof(float4) == 16 && alignof(float4) == 16, "float4 must be 16 bytes, aligned");
static_assert(sizeof(float2) == 8 && alignof(float2) == 8, "float2 must be 8 bytes, aligned");
static_assert(sizeof(double2) == 16 && sizeof(float3) == 12, "CUDA vector sizes");
static_assert(sizeof(double4) == 32 && alignof(double4) == 16, "double4: 32 bytes, 16-aligned");
static_assert(sizeof(char3) == 3 && alignof(short3) == 2, "3-component types are not padded");

// ---- Math and intrinsics --------------------------------------------------------------------
using std::max;
using std::min;
inline int min(int a, unsigned b) {
  return a < static_cast<int>(b) ? a : static_cast<int>(b);
}
inline int min(unsigned a, int b) {
  return static_cast<int>(a) < b ? static_cast<int>(a) : b;
}
inline int max(int a, unsigned b) {
  return a > static_cast<int>(b) ? a : static_cast<int>(b);
}
inline int max(unsigned a, int b) {
  return static_cast<int>(a) > b ? static_cast<int>(a) : b;
}
inline float min(float a, double b) {
  return a < b ? a : static_cast<float>(b);
}
inline float max(float a, double b) {
  return a > b ? a : static_cast<float>(b);
}
inline float rsqrtf(float x) {
  return 1.0f / std::sqrt(x);
}
inline double rsqrt(double x) {
  return 1.0 / std::sqrt(x);
}
inline float __expf(float x) {
  return std::exp(x);
}
inline float __logf(float x) {
  return std::log(x);
}
inline float __sinf(float x) {
  return std::sin(x);
}
inline float __cosf(float x) {
  return std::cos(x);
}
inline float __powf(float x, float y) {
  return std::pow(x, y);
}
inline float __fdividef(float x, float y) {
  return x / y;
}
inline float __saturatef(float x) {
  return x < 0.0f ? 0.0f : (x > 1.0f ? 1.0f : x);
}
inline float __fmaf_rn(float a, float b, float c) {
  return std::fma(a, b, c);
}
inline float __fmul_rn(float a, float b) {
  return a * b;
}
inline float __fadd_rn(float a, float b) {
  return a + b;
}
inline int __float2int_rn(float x) {
  return static_cast<int>(std::nearbyint(x));
}
inline int __float2int_rz(float x) {
  return static_cast<int>(x);
}
inline float __int2float_rn(int x) {
  return static_cast<float>(x);
}
inline float __int_as_float(int x) {
  float f;
  std::memcpy(&f, &x, sizeof f);
  return f;
}
inline int __float_as_int(float x) {
  int i;
  std::memcpy(&i, &x, sizeof i);
  return i;
}
inline unsigned __float_as_uint(float x) {
  unsigned i;
  std::memcpy(&i, &x, sizeof i);
  return i;
}
inline float __uint_as_float(unsigned x) {
  float f;
  std::memcpy(&f, &x, sizeof f);
  return f;
}
inline int __popc(unsigned x) {
  return __builtin_popcount(x);
}
inline int __popcll(unsigned long long x) {
  return __builtin_popcountll(x);
}
inline int __clz(int x) {
  return x == 0 ? 32 : __builtin_clz(static_cast<unsigned>(x));
}
inline int __ffs(int x) {
  return __builtin_ffs(x);
}
inline unsigned __brev(unsigned x) {
  unsigned r = 0;
  for (int i = 0; i < 32; ++i) r |= ((x >> i) & 1u) << (31 - i);
  return r;
}
// 24-bit multiplies: the low 24 bits of each operand (sign-extended for __mul24), the low 32
// bits of the product, as CUDA's math API defines them.
inline int __mul24(int a, int b) {
  const auto lo24 = [](int v) {
    return static_cast<long long>(static_cast<int>(static_cast<unsigned>(v) << 8) >> 8);
  };
  return static_cast<int>(static_cast<unsigned long long>(lo24(a) * lo24(b)));
}
inline unsigned __umul24(unsigned a, unsigned b) {
  return (a & 0xffffffu) * (b & 0xffffffu);
}
inline unsigned __umulhi(unsigned a, unsigned b) {
  return static_cast<unsigned>((static_cast<unsigned long long>(a) * b) >> 32);
}
inline int __mulhi(int a, int b) {
  return static_cast<int>((static_cast<long long>(a) * b) >> 32);
}
inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b) {
  return static_cast<unsigned long long>((static_cast<unsigned __int128>(a) * b) >> 64);
}
inline long long __mul64hi(long long a, long long b) {
  return static_cast<long long>((static_cast<__int128>(a) * b) >> 64);
}
inline int __clzll(long long x) {
  return x == 0 ? 64 : __builtin_clzll(static_cast<unsigned long long>(x));
}
inline int __ffsll(long long x) {
  return __builtin_ffsll(x);
}
inline unsigned long long __brevll(unsigned long long x) {
  return (static_cast<unsigned long long>(__brev(static_cast<unsigned>(x))) << 32) |
         __brev(static_cast<unsigned>(x >> 32));
}
// Funnel shifts: the 64-bit hi:lo shifted by shift & 31 (the "c" forms clamp to 32).
inline unsigned __funnelshift_l(unsigned lo, unsigned hi, unsigned shift) {
  const unsigned long long v = (static_cast<unsigned long long>(hi) << 32) | lo;
  return static_cast<unsigned>((v << (shift & 31u)) >> 32);
}
inline unsigned __funnelshift_lc(unsigned lo, unsigned hi, unsigned shift) {
  const unsigned long long v = (static_cast<unsigned long long>(hi) << 32) | lo;
  return static_cast<unsigned>((v << (shift > 32u ? 32u : shift)) >> 32);
}
inline unsigned __funnelshift_r(unsigned lo, unsigned hi, unsigned shift) {
  const unsigned long long v = (static_cast<unsigned long long>(hi) << 32) | lo;
  return static_cast<unsigned>(v >> (shift & 31u));
}
inline unsigned __funnelshift_rc(unsigned lo, unsigned hi, unsigned shift) {
  const unsigned long long v = (static_cast<unsigned long long>(hi) << 32) | lo;
  return static_cast<unsigned>(v >> (shift > 32u ? 32u : shift));
}
// Byte n of the result is byte (s >> 4n) & 7 of the 8 bytes y:x (x's bytes are 0-3).
inline unsigned __byte_perm(unsigned x, unsigned y, unsigned s) {
  const unsigned long long v = (static_cast<unsigned long long>(y) << 32) | x;
  unsigned r = 0;
  for (unsigned n = 0; n < 4; ++n) r |= ((v >> (8u * ((s >> (4u * n)) & 7u))) & 0xffu) << (8u * n);
  return r;
}
inline unsigned __sad(int x, int y, unsigned z) {
  return z + static_cast<unsigned>(x > y ? static_cast<long long>(x) - y
                                         : static_cast<long long>(y) - x);
}
inline unsigned __usad(unsigned x, unsigned y, unsigned z) {
  return z + (x > y ? x - y : y - x);
}
// Averages without overflow: (x + y) >> 1, and (x + y + 1) >> 1 for the rounded forms.
inline int __hadd(int x, int y) {
  return static_cast<int>((static_cast<long long>(x) + y) >> 1);
}
inline int __rhadd(int x, int y) {
  return static_cast<int>((static_cast<long long>(x) + y + 1) >> 1);
}
inline unsigned __uhadd(unsigned x, unsigned y) {
  return static_cast<unsigned>((static_cast<unsigned long long>(x) + y) >> 1);
}
inline unsigned __urhadd(unsigned x, unsigned y) {
  return static_cast<unsigned>((static_cast<unsigned long long>(x) + y + 1) >> 1);
}
// Round-to-nearest single and double operations: what IEEE arithmetic on the CPU gives.
inline float __fsub_rn(float a, float b) {
  return a - b;
}
inline float __fdiv_rn(float a, float b) {
  return a / b;
}
inline float __frcp_rn(float a) {
  return 1.0f / a;
}
inline float __fsqrt_rn(float a) {
  return std::sqrt(a);
}
inline double __dadd_rn(double a, double b) {
  return a + b;
}
inline double __dsub_rn(double a, double b) {
  return a - b;
}
inline double __dmul_rn(double a, double b) {
  return a * b;
}
inline double __ddiv_rn(double a, double b) {
  return a / b;
}
inline double __drcp_rn(double a) {
  return 1.0 / a;
}
inline double __dsqrt_rn(double a) {
  return std::sqrt(a);
}
inline double __fma_rn(double a, double b, double c) {
  return std::fma(a, b, c);
}
// Norms and pi-scaled trigonometry, computed in double and rounded once to float.
inline float norm3df(float a, float b, float c) {
  return static_cast<float>(std::sqrt(static_cast<double>(a) * a + static_cast<double>(b) * b +
                                      static_cast<double>(c) * c));
}
inline float rnorm3df(float a, float b, float c) {
  return static_cast<float>(1.0 /
                            std::sqrt(static_cast<double>(a) * a + static_cast<double>(b) * b +
                                      static_cast<double>(c) * c));
}
inline float norm4df(float a, float b, float c, float d) {
  return static_cast<float>(std::sqrt(static_cast<double>(a) * a + static_cast<double>(b) * b +
                                      static_cast<double>(c) * c + static_cast<double>(d) * d));
}
inline float rnorm4df(float a, float b, float c, float d) {
  return static_cast<float>(1.0 /
                            std::sqrt(static_cast<double>(a) * a + static_cast<double>(b) * b +
                                      static_cast<double>(c) * c + static_cast<double>(d) * d));
}
inline float rhypotf(float a, float b) {
  return static_cast<float>(1.0 / std::hypot(static_cast<double>(a), b));
}
inline float sinpif(float x) {
  return static_cast<float>(
      std::sin(3.14159265358979323846 * std::fmod(static_cast<double>(x), 2.0)));
}
inline float cospif(float x) {
  return static_cast<float>(
      std::cos(3.14159265358979323846 * std::fmod(static_cast<double>(x), 2.0)));
}
inline void sincospif(float x, float* s, float* c) {
  *s = sinpif(x);
  *c = cospif(x);
}
inline float normcdff(float x) {
  return static_cast<float>(0.5 * std::erfc(-static_cast<double>(x) / 1.4142135623730950488));
}
// Time is not modelled: clock64() counts the CPU's cycles (monotonic within a thread's run, as on
// the GPU; the values mean nothing for the GPU's speed); __nanosleep returns at once.
inline long long clock64() {
  return static_cast<long long>(__builtin_readcyclecounter());
}
inline void __nanosleep(unsigned) {}
template <typename T>
inline T __ldg(const T* p) {
  return *p;
}
// Loads and stores with a cache hint (global memory): the same access as without the hint here;
// the hint changes only where the GPU keeps the line, which banksim does not model.
#define BANKSIM_HINTED_LOAD(name) \
  template <typename T>           \
  inline T name(const T* p) {     \
    return *p;                    \
  }
#define BANKSIM_HINTED_STORE(name) \
  template <typename T>            \
  inline void name(T* p, T v) {    \
    *p = v;                        \
  }
BANKSIM_HINTED_LOAD(__ldca)
BANKSIM_HINTED_LOAD(__ldcg)
BANKSIM_HINTED_LOAD(__ldcs)
BANKSIM_HINTED_LOAD(__ldlu)
BANKSIM_HINTED_LOAD(__ldcv)
BANKSIM_HINTED_STORE(__stwb)
BANKSIM_HINTED_STORE(__stcg)
BANKSIM_HINTED_STORE(__stcs)
BANKSIM_HINTED_STORE(__stwt)
#undef BANKSIM_HINTED_LOAD
#undef BANKSIM_HINTED_STORE

// ---- Atomics --------------------------------------------------------------------------------
#define BANKSIM_ATOMIC_INT(name, op)                                            \
  inline int name(int* a, int v) {                                              \
    return banksim_atomic_i32(op, a, v, 0);                                     \
  }                                                                             \
  inline unsigned name(unsigned* a, unsigned v) {                               \
    return banksim_atomic_u32(op, a, v, 0);                                     \
  }                                                                             \
  inline unsigned long long name(unsigned long long* a, unsigned long long v) { \
    return banksim_atomic_u64(op, a, v, 0);                                     \
  }
BANKSIM_ATOMIC_INT(atomicAdd, banksim_atomic::kAdd)
BANKSIM_ATOMIC_INT(atomicSub, banksim_atomic::kSub)
BANKSIM_ATOMIC_INT(atomicExch, banksim_atomic::kExch)
BANKSIM_ATOMIC_INT(atomicMin, banksim_atomic::kMin)
BANKSIM_ATOMIC_INT(atomicMax, banksim_atomic::kMax)
BANKSIM_ATOMIC_INT(atomicAnd, banksim_atomic::kAnd)
BANKSIM_ATOMIC_INT(atomicOr, banksim_atomic::kOr)
BANKSIM_ATOMIC_INT(atomicXor, banksim_atomic::kXor)
#undef BANKSIM_ATOMIC_INT
inline float atomicAdd(float* a, float v) {
  return banksim_atomic_f32(banksim_atomic::kAdd, a, v);
}
inline double atomicAdd(double* a, double v) {
  return banksim_atomic_f64(banksim_atomic::kAdd, a, v);
}
inline float atomicExch(float* a, float v) {
  return banksim_atomic_f32(banksim_atomic::kExch, a, v);
}
inline unsigned atomicInc(unsigned* a, unsigned v) {
  return banksim_atomic_u32(banksim_atomic::kInc, a, v, 0);
}
inline unsigned atomicDec(unsigned* a, unsigned v) {
  return banksim_atomic_u32(banksim_atomic::kDec, a, v, 0);
}
inline int atomicCAS(int* a, int compare, int v) {
  return banksim_atomic_i32(banksim_atomic::kCas, a, v, compare);
}
inline unsigned atomicCAS(unsigned* a, unsigned compare, unsigned v) {
  return banksim_atomic_u32(banksim_atomic::kCas, a, v, compare);
}
inline unsigned long long atomicCAS(unsigned long long* a, unsigned long long compare,
                                    unsigned long long v) {
  return banksim_atomic_u64(banksim_atomic::kCas, a, v, compare);
}

// sm_90's vector atomicAdd (global memory): each component is added atomically.
inline float2 atomicAdd(float2* a, float2 v) {
  float* f = reinterpret_cast<float*>(a);
  return float2{atomicAdd(f, v.x), atomicAdd(f + 1, v.y)};
}
inline float4 atomicAdd(float4* a, float4 v) {
  float* f = reinterpret_cast<float*>(a);
  return float4{atomicAdd(f, v.x), atomicAdd(f + 1, v.y), atomicAdd(f + 2, v.z),
                atomicAdd(f + 3, v.w)};
}
// The _block and _system scopes: one block runs at a time here, so each is the plain atomic.
#define BANKSIM_ATOMIC_SCOPES(op)                       \
  template <typename... A>                              \
  inline auto op##_block(A... a)->decltype(op(a...)) {  \
    return op(a...);                                    \
  }                                                     \
  template <typename... A>                              \
  inline auto op##_system(A... a)->decltype(op(a...)) { \
    return op(a...);                                    \
  }
BANKSIM_ATOMIC_SCOPES(atomicAdd)
BANKSIM_ATOMIC_SCOPES(atomicSub)
BANKSIM_ATOMIC_SCOPES(atomicExch)
BANKSIM_ATOMIC_SCOPES(atomicMin)
BANKSIM_ATOMIC_SCOPES(atomicMax)
BANKSIM_ATOMIC_SCOPES(atomicInc)
BANKSIM_ATOMIC_SCOPES(atomicDec)
BANKSIM_ATOMIC_SCOPES(atomicCAS)
BANKSIM_ATOMIC_SCOPES(atomicAnd)
BANKSIM_ATOMIC_SCOPES(atomicOr)
BANKSIM_ATOMIC_SCOPES(atomicXor)
#undef BANKSIM_ATOMIC_SCOPES

// ---- Warp functions -------------------------------------------------------------------------
namespace banksim_warp {
inline unsigned lane_id() {
  return (threadIdx.x + threadIdx.y * blockDim.x + threadIdx.z * blockDim.x * blockDim.y) % 32u;
}
template <typename T>
inline T exchange(unsigned mask, T value, int src) {
  static_assert(sizeof(T) <= 8 && std::is_trivially_copyable<T>::value,
                "banksim: __shfl_*_sync supports types of at most 8 bytes");
  unsigned long long bits = 0;
  std::memcpy(&bits, &value, sizeof(T));
  bits = banksim_warp_exchange(mask, bits, src, banksim_exchange::kShuffle);
  T out;
  std::memcpy(&out, &bits, sizeof(T));
  return out;
}
}  // namespace banksim_warp
template <typename T>
inline T __shfl_sync(unsigned mask, T v, int src, int width = 32) {
  const int lane = static_cast<int>(banksim_warp::lane_id());
  return banksim_warp::exchange(mask, v, (lane & ~(width - 1)) + (src & (width - 1)));
}
template <typename T>
inline T __shfl_down_sync(unsigned mask, T v, unsigned delta, int width = 32) {
  const int lane = static_cast<int>(banksim_warp::lane_id());
  const int src = lane + static_cast<int>(delta);
  const bool inside = (src & ~(width - 1)) == (lane & ~(width - 1));
  return banksim_warp::exchange(mask, v, inside ? src : lane);
}
template <typename T>
inline T __shfl_up_sync(unsigned mask, T v, unsigned delta, int width = 32) {
  const int lane = static_cast<int>(banksim_warp::lane_id());
  const int src = lane - static_cast<int>(delta);
  const bool inside = src >= 0 && (src & ~(width - 1)) == (lane & ~(width - 1));
  return banksim_warp::exchange(mask, v, inside ? src : lane);
}
template <typename T>
inline T __shfl_xor_sync(unsigned mask, T v, int lane_mask, int width = 32) {
  const int lane = static_cast<int>(banksim_warp::lane_id());
  const int src = lane ^ lane_mask;
  const bool inside = (src & ~(width - 1)) == (lane & ~(width - 1));
  return banksim_warp::exchange(mask, v, inside ? src : lane);
}
inline unsigned __ballot_sync(unsigned mask, int predicate) {
  return static_cast<unsigned>(
      banksim_warp_exchange(mask, predicate != 0, 0, banksim_exchange::kBallot));
}
inline int __any_sync(unsigned mask, int predicate) {
  return __ballot_sync(mask, predicate) != 0;
}
inline int __all_sync(unsigned mask, int predicate) {
  return __ballot_sync(mask, predicate) == __ballot_sync(mask, 1);
}
// Warp reductions (sm_80+): every lane of `mask` gets the reduction of the mask's values.
namespace banksim_warp {
// Always inlined, as every function below: the runtime tells call sites apart by the caller's pc.
__attribute__((always_inline)) inline unsigned collective(unsigned mask, unsigned long long value,
                                                          int mode) {
  return static_cast<unsigned>(banksim_warp_exchange(mask, value, 0, mode));
}
template <typename T>
inline unsigned long long match_bits(T value) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "__match_*_sync takes 32- or 64-bit values");
  unsigned long long bits = 0;
  std::memcpy(&bits, &value, sizeof(T));
  return bits;
}
}  // namespace banksim_warp
__attribute__((always_inline)) inline unsigned __reduce_add_sync(unsigned mask, unsigned value) {
  return banksim_warp::collective(mask, value, banksim_exchange::kReduceAdd);
}
__attribute__((always_inline)) inline int __reduce_add_sync(unsigned mask, int value) {
  return static_cast<int>(
      banksim_warp::collective(mask, static_cast<unsigned>(value), banksim_exchange::kReduceAdd));
}
__attribute__((always_inline)) inline unsigned __reduce_min_sync(unsigned mask, unsigned value) {
  return banksim_warp::collective(mask, value, banksim_exchange::kReduceMinU);
}
__attribute__((always_inline)) inline int __reduce_min_sync(unsigned mask, int value) {
  return static_cast<int>(
      banksim_warp::collective(mask, static_cast<unsigned>(value), banksim_exchange::kReduceMinS));
}
__attribute__((always_inline)) inline unsigned __reduce_max_sync(unsigned mask, unsigned value) {
  return banksim_warp::collective(mask, value, banksim_exchange::kReduceMaxU);
}
__attribute__((always_inline)) inline int __reduce_max_sync(unsigned mask, int value) {
  return static_cast<int>(
      banksim_warp::collective(mask, static_cast<unsigned>(value), banksim_exchange::kReduceMaxS));
}
__attribute__((always_inline)) inline unsigned __reduce_and_sync(unsigned mask, unsigned value) {
  return banksim_warp::collective(mask, value, banksim_exchange::kReduceAnd);
}
__attribute__((always_inline)) inline unsigned __reduce_or_sync(unsigned mask, unsigned value) {
  return banksim_warp::collective(mask, value, banksim_exchange::kReduceOr);
}
__attribute__((always_inline)) inline unsigned __reduce_xor_sync(unsigned mask, unsigned value) {
  return banksim_warp::collective(mask, value, banksim_exchange::kReduceXor);
}
/// The lanes of `mask` whose value has the same bits as this lane's.
template <typename T>
__attribute__((always_inline)) inline unsigned __match_any_sync(unsigned mask, T value) {
  return banksim_warp::collective(mask, banksim_warp::match_bits(value),
                                  banksim_exchange::kMatchAny);
}
/// `mask` if every lane of it has the same value (*pred = 1), else 0 (*pred = 0).
template <typename T>
__attribute__((always_inline)) inline unsigned __match_all_sync(unsigned mask, T value, int* pred) {
  const unsigned r =
      banksim_warp::collective(mask, banksim_warp::match_bits(value), banksim_exchange::kMatchAll);
  *pred = r != 0;
  return r;
}
/// The lanes of the warp that execute this call together: under banksim, the lanes that wait at
/// this call site when the warp's lanes have all run as far as they can (a lane in another branch
/// waits elsewhere, or has returned, or waits at a __syncthreads).
__attribute__((always_inline)) inline unsigned __activemask() {  // the caller's call site
  return static_cast<unsigned>(banksim_warp_exchange(0, 0, 0, banksim_exchange::kActiveMask));
}

// ---- Host-side CUDA runtime (for files with a launch helper or a main) ----------------------
#include "banksim/cuda_host_api.hpp"

// `kernel<<<grid, block, smem, stream>>>(args)` is rewritten to
// `banksim::configure(grid, block, smem, stream).kernel(kernel)(args)`.
namespace banksim {
struct LaunchConfigurator {
  dim3 grid, block;
  std::size_t smem;
  template <typename... P>
  struct Bound {
    const LaunchConfigurator* config;
    void (*fn)(P...);
    // The parameters' own types: the arguments convert as in a call (NULL or 0 for a pointer).
    // Default arguments cannot be seen through the kernel's pointer: for a kernel of the file
    // that has them, the rewrite adds defaults() below.
    void operator()(P... a) const {
      static const KernelEntry entry = make_kernel_entry("<launched from host code>", fn);
      std::tuple<P...> values(a...);
      call(entry, values, std::index_sequence_for<P...>{});
    }
    /// A launch of a kernel with default arguments (the source rewrite adds this): `all` has
    /// the kernel's parameter list, defaults included, and returns every argument.
    template <typename F>
    struct WithDefaults {
      const Bound* bound;
      F all;
      template <typename... A>
      void operator()(A&&... a) const {
        std::apply(*bound, all(std::forward<A>(a)...));
      }
    };
    template <typename F>
    WithDefaults<F> defaults(F all) const {
      return WithDefaults<F>{this, all};
    }
    template <typename... A, std::enable_if_t<sizeof...(A) != sizeof...(P), int> = 0>
    void operator()(A&&...) const {
      static_assert(sizeof...(A) == sizeof...(P),
                    "banksim: this <<<>>> launch passes a different number of arguments than the "
                    "kernel has parameters (default arguments can be left out only where the "
                    "kernel, not a template, is declared in the same file)");
    }
    template <std::size_t... I>
    void call(const KernelEntry& entry, std::tuple<P...>& values, std::index_sequence<I...>) const {
      void* args[sizeof...(P) + 1] = {static_cast<void*>(&std::get<I>(values))..., nullptr};
      banksim_launch(&entry, config->grid, config->block, config->smem, args);
    }
  };
  template <typename... P>
  Bound<P...> kernel(void (*fn)(P...)) const {
    return Bound<P...>{this, fn};
  }
  // Anything else before <<<: one message, in the student's terms (no overload list).
  struct NotAKernel {
    template <typename... A>
    void operator()(A&&...) const {}
  };
  template <typename F,
            std::enable_if_t<!std::is_convertible_v<F, void (*)()> &&
                                 !std::is_function_v<std::remove_pointer_t<std::decay_t<F>>>,
                             int> = 0>
  NotAKernel kernel(F&&) const {
    static_assert(sizeof(F) == 0,
                  "the expression before <<< is not a kernel: launch a __global__ function, a "
                  "template instance of one (kernel<float, 4>), or a pointer to one");
    return {};
  }
};
inline LaunchConfigurator configure(dim3 grid, dim3 block, std::size_t smem = 0,
                                    cudaStream_t = nullptr) {
  return LaunchConfigurator{grid, block, smem};
}
}  // namespace banksim

// As in nvcc's device pass: the kernels banksim runs are the device code, compiled for the GPU
// whose widths count (CompileOptions::gpu_arch; banksim passes BANKSIM_CUDA_ARCH, 900 for sm_90,
// the course's GPU). Defined last, so that the standard headers above never see it.
#ifndef BANKSIM_CUDA_ARCH
#define BANKSIM_CUDA_ARCH 900
#endif
#define __CUDA_ARCH__ BANKSIM_CUDA_ARCH
#define __BANKSIM__ 1
// The runtime version cuda_runtime_api.h (which nvcc always includes) and cuda.h define: the
// CUDA 13.0 whose nvcc banksim reads access widths from and whose semantics it follows.
#define CUDART_VERSION 13000
#define CUDA_VERSION 13000
