// vector_types_all.cu - every vector type of CUDA 13's vector_types.h with nvcc's size and
// alignment (the static_asserts hold under nvcc too: scripts/nvcc-compile-all.sh), the toolkit's
// own <cuda/std/...> headers in a kernel, and float3 code whose returned values clang moves as
// 8 + 4 bytes (nvcc: three 4-byte accesses, no misaligned address).
#include <cuda_runtime.h>

#include <cuda/std/array>
#include <cuda/std/cstdint>
#include <cuda/std/limits>
#include <cuda/std/tuple>
#include <cuda/std/type_traits>

#define CHECK_VEC(T, size, align) \
  static_assert(sizeof(T) == (size) && alignof(T) == (align), #T ": size or alignment")
CHECK_VEC(char1, 1, 1);
CHECK_VEC(char2, 2, 2);
CHECK_VEC(char3, 3, 1);
CHECK_VEC(char4, 4, 4);
CHECK_VEC(uchar1, 1, 1);
CHECK_VEC(uchar2, 2, 2);
CHECK_VEC(uchar3, 3, 1);
CHECK_VEC(uchar4, 4, 4);
CHECK_VEC(short1, 2, 2);
CHECK_VEC(short2, 4, 4);
CHECK_VEC(short3, 6, 2);
CHECK_VEC(short4, 8, 8);
CHECK_VEC(ushort1, 2, 2);
CHECK_VEC(ushort2, 4, 4);
CHECK_VEC(ushort3, 6, 2);
CHECK_VEC(ushort4, 8, 8);
CHECK_VEC(int1, 4, 4);
CHECK_VEC(int2, 8, 8);
CHECK_VEC(int3, 12, 4);
CHECK_VEC(int4, 16, 16);
CHECK_VEC(uint1, 4, 4);
CHECK_VEC(uint2, 8, 8);
CHECK_VEC(uint3, 12, 4);
CHECK_VEC(uint4, 16, 16);
CHECK_VEC(long1, 8, 8);
CHECK_VEC(long2, 16, 16);
CHECK_VEC(long3, 24, 8);
CHECK_VEC(long4, 32, 16);
CHECK_VEC(ulong1, 8, 8);
CHECK_VEC(ulong2, 16, 16);
CHECK_VEC(ulong3, 24, 8);
CHECK_VEC(ulong4, 32, 16);
CHECK_VEC(longlong1, 8, 8);
CHECK_VEC(longlong2, 16, 16);
CHECK_VEC(longlong3, 24, 8);
CHECK_VEC(longlong4, 32, 16);
CHECK_VEC(ulonglong1, 8, 8);
CHECK_VEC(ulonglong2, 16, 16);
CHECK_VEC(ulonglong3, 24, 8);
CHECK_VEC(ulonglong4, 32, 16);
CHECK_VEC(float1, 4, 4);
CHECK_VEC(float2, 8, 8);
CHECK_VEC(float3, 12, 4);
CHECK_VEC(float4, 16, 16);
CHECK_VEC(double1, 8, 8);
CHECK_VEC(double2, 16, 16);
CHECK_VEC(double3, 24, 8);
CHECK_VEC(double4, 32, 16);
CHECK_VEC(long4_16a, 32, 16);
CHECK_VEC(long4_32a, 32, 32);
CHECK_VEC(ulong4_16a, 32, 16);
CHECK_VEC(ulong4_32a, 32, 32);
CHECK_VEC(longlong4_16a, 32, 16);
CHECK_VEC(longlong4_32a, 32, 32);
CHECK_VEC(ulonglong4_16a, 32, 16);
CHECK_VEC(ulonglong4_32a, 32, 32);
CHECK_VEC(double4_16a, 32, 16);
CHECK_VEC(double4_32a, 32, 32);
CHECK_VEC(dim3, 12, 4);
static_assert(cuda::std::is_same<decltype(char4{}.x), signed char>::value,
              "char4 holds signed char");
static_assert(cuda::std::is_trivially_copyable<float3>::value, "vector types are trivial");
static_assert(CUDART_VERSION >= 13000, "CUDA 13's runtime version");

// Thread t fills one element of each kind with make_* from t and writes the sum of its fields:
// out[t] = 1 (char1) + ... : every make_* and field is used once (the host checks the sum).
__global__ void make_all(long long* out) {
  const int t = static_cast<int>(threadIdx.x);
  const auto c = static_cast<signed char>(t);
  const auto u = static_cast<unsigned char>(t);
  long long s = 0;
  {
    const char1 a = make_char1(c);
    const char2 b = make_char2(c, c);
    const char3 d = make_char3(c, c, c);
    const char4 e = make_char4(c, c, c, c);
    s += a.x + b.x + b.y + d.x + d.y + d.z + e.x + e.y + e.z + e.w;  // 10 t
  }
  {
    const uchar3 d = make_uchar3(u, u, u);
    const ushort4 e = make_ushort4(u, u, u, u);
    const short3 f = make_short3(c, c, c);
    s += d.x + d.y + d.z + e.x + e.y + e.z + e.w + f.x + f.y + f.z;  // 10 t
  }
  {
    const int1 a = make_int1(t);
    const uint3 b = make_uint3(t, t, t);
    const long2 d = make_long2(t, t);
    const longlong3 e = make_longlong3(t, t, t);
    const ulonglong4 f = make_ulonglong4(t, t, t, t);
    s += a.x + b.x + b.y + b.z + d.x + d.y + e.x + e.y + e.z;  // 9 t
    s += static_cast<long long>(f.x + f.y + f.z + f.w);        // 4 t
  }
  {
    const float1 a = make_float1(static_cast<float>(t));
    const double3 b = make_double3(t, t, t);
    const double4 d = make_double4(t, t, t, t);
    const double4_32a e = make_double4_32a(t, t, t, t);
    s += static_cast<long long>(a.x + b.x + b.y + b.z + d.x + d.y + d.z + d.w);  // 8 t
    s += static_cast<long long>(e.x + e.y + e.z + e.w);                          // 4 t
  }
  out[t] = s;  // 45 t
}

// <cuda/std/...>: out[t] = t + FLT_MAX's exponent test + tuple and array arithmetic = 2 t + 4.
__global__ void cuda_std(int* out) {
  __shared__ cuda::std::array<cuda::std::int32_t, 32> vals;
  const int t = static_cast<int>(threadIdx.x);
  vals[t] = t;
  __syncthreads();
  const auto pair = cuda::std::make_tuple(vals[31 - t], 2);
  const int big = cuda::std::numeric_limits<float>::max() > 1e38f ? 2 : 0;
  out[t] = (31 - cuda::std::get<0>(pair)) + t + cuda::std::get<1>(pair) + big;
}

__device__ float3 cross3(float3 a, float3 b) {
  return make_float3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}

// out[t] = cross(in[t], in[t + 1 mod 32]), staged through a float3 array in shared memory.
__global__ void float3_cross(float3* out, const float3* in) {
  __shared__ float3 p[32];
  const int t = static_cast<int>(threadIdx.x);
  p[t] = in[t];
  __syncwarp();
  out[t] = cross3(p[t], p[(t + 1) % 32]);  // @cross
}
