// libcuxx_vectors.cu - the CUDA toolkit's own libcu++ (<cuda/std/...>) in kernels, and CUDA's
// less common vector types (1- and 3-component, 8-byte short4, 16-byte longlong2, 32-byte double4),
// as code written for nvcc uses them.
//
// Exercises (lane = threadIdx.x % 32, warp = threadIdx.x / 32):
//   complex_transpose: 32x8 blocks transpose a 32x32 tile of cuda::std::complex<float> (8 bytes)
//                      padded to 33 per row; row stores, column reads.
//   short4_stride:     ushort4 q[256] (8 bytes): store q[t], read q[(3 t) % 256] (a 24-byte
//                      stride); char2 c2[256] (2 bytes): store c2[t], read c2[t ^ 16].
//   rgb_pixels:        uchar3 px[256] (3 bytes, byte-aligned): store px[t], read px[255 - t].
//   wide_structs:      double4 d[128] (32 bytes, 16-aligned) store d[t] read d[127 - t] with
//                      128 threads; longlong2 l2[128]: store l2[t], read l2[(t + 1) % 128];
//                      int3 i3[128] (12 bytes): store i3[t], read i3[t].
//   array_rows:        cuda::std::array<float, 4> rows[256] (16 bytes, 4-aligned): store whole,
//                      read rows[t ^ 8] whole; cuda::std::pair<int, float> pr[256] (8 bytes).
//   float3_particles:  float3 p[256] (12 bytes) staged from global memory, cross products with
//                      the next two particles (a __device__ function returning float3), the sum
//                      written to a float3 array: clang moves a returned float3's x and y as one
//                      8-byte access at odd elements, nvcc as 4-byte ones (no misaligned access).
//
// Every warp executes every shared instruction with all 32 lanes active; shared indices depend
// only on thread indices. in holds at least 4 floats per thread, out 1 float per thread.
#include <cuda_runtime.h>

#include <cuda/std/array>
#include <cuda/std/complex>
#include <cuda/std/cstdint>
#include <cuda/std/limits>
#include <cuda/std/type_traits>
#include <cuda/std/utility>

static_assert(cuda::std::is_trivially_copyable<ushort4>::value, "vector types are trivial");
static_assert(sizeof(double4) == 32 && alignof(double4) == 16, "CUDA's double4");

__device__ __forceinline__ int gid() {
  return static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
}

// grid (n/32, n/32), block (32, 8): out = transpose(in) * (1 + 0i), complex numbers as float2.
__global__ void complex_transpose(float2* out, const float2* in, int n) {
  __shared__ cuda::std::complex<float> tile[32][33];
  const int x = static_cast<int>(blockIdx.x) * 32 + static_cast<int>(threadIdx.x);
  const int y0 = static_cast<int>(blockIdx.y) * 32;
  for (int j = static_cast<int>(threadIdx.y); j < 32; j += 8) {
    const float2 v = in[(y0 + j) * n + x];
    tile[j][threadIdx.x] = cuda::std::complex<float>(v.x, v.y);
  }
  __syncthreads();
  const int tx = static_cast<int>(blockIdx.y) * 32 + static_cast<int>(threadIdx.x);
  const int ty0 = static_cast<int>(blockIdx.x) * 32;
  for (int j = static_cast<int>(threadIdx.y); j < 32; j += 8) {
    const cuda::std::complex<float> c = tile[threadIdx.x][j] * cuda::std::complex<float>(1, 0);
    out[(ty0 + j) * n + tx] = make_float2(c.real(), c.imag());
  }
}

// block 256.
__global__ void short4_stride(float* out, const float* in) {
  __shared__ ushort4 q[256];
  __shared__ char2 c2[256];
  const int t = static_cast<int>(threadIdx.x);
  const float v = in[gid()];
  const auto s = static_cast<unsigned short>(v * 1000.0f + 2000.0f);
  q[t] = make_ushort4(s, s + 1, s + 2, s + 3);
  c2[t] = make_char2(static_cast<signed char>(t), static_cast<signed char>(-t));
  __syncthreads();
  const ushort4 r = q[(3 * t) % 256];
  const char2 c = c2[t ^ 16];
  out[gid()] = static_cast<float>(r.x + r.y + r.z + r.w) + static_cast<float>(c.x - c.y);
}

// block 256.
__global__ void rgb_pixels(float* out, const float* in) {
  __shared__ uchar3 px[256];
  const int t = static_cast<int>(threadIdx.x);
  const float v = in[gid()];
  const auto b = static_cast<unsigned char>(static_cast<int>(v * 100.0f + 128.0f));
  px[t] = make_uchar3(b, static_cast<unsigned char>(b + 1), static_cast<unsigned char>(b + 2));
  __syncthreads();
  const uchar3 p = px[255 - t];
  out[gid()] = static_cast<float>(p.x) + 2.0f * p.y + 3.0f * p.z;
}

// block 128.
__global__ void wide_structs(float* out, const float* in) {
  __shared__ double4 d[128];
  __shared__ longlong2 l2[128];
  __shared__ int3 i3[128];
  const int t = static_cast<int>(threadIdx.x);
  const double v = in[gid()];
  d[t] = make_double4(v, v + 1, v + 2, v + 3);
  l2[t] = make_longlong2(static_cast<long long>(v * 1e6), t);
  i3[t] = make_int3(t, 2 * t, 3 * t);
  __syncthreads();
  const double4 e = d[127 - t];
  const longlong2 m = l2[(t + 1) % 128];
  const int3 k = i3[t];
  out[gid()] = static_cast<float>(e.x + e.y + e.z + e.w) + static_cast<float>(m.x % 7 + m.y) +
               static_cast<float>(k.x + k.y + k.z);
}

// block 256.
__global__ void array_rows(float* out, const float* in) {
  __shared__ cuda::std::array<float, 4> rows[256];
  __shared__ cuda::std::pair<int, float> pr[256];
  const int t = static_cast<int>(threadIdx.x);
  const float v = in[gid()];
  rows[t] = cuda::std::array<float, 4>{v, v * 2, v * 3, cuda::std::numeric_limits<float>::min()};
  pr[t] = cuda::std::make_pair(t, v);
  __syncthreads();
  const cuda::std::array<float, 4> r = rows[t ^ 8];
  const cuda::std::pair<int, float> p = pr[(t + 32) % 256];
  out[gid()] = r[0] + r[1] + r[2] + r[3] + static_cast<float>(p.first) + p.second;
}

__device__ float3 cross3(float3 a, float3 b) {
  return make_float3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}

// block 256.
__global__ void float3_particles(float3* out, const float3* pos) {
  __shared__ float3 p[256];
  const int t = static_cast<int>(threadIdx.x);
  p[t] = pos[gid()];
  __syncthreads();
  float3 acc = make_float3(0.0f, 0.0f, 0.0f);
  for (int k = 1; k <= 2; ++k) {
    const float3 c = cross3(p[t], p[(t + k) % 256]);
    acc = make_float3(acc.x + c.x, acc.y + c.y, acc.z + c.z);
  }
  out[gid()] = acc;
}
