// vector_types.cu - 8- and 16-byte shared accesses through CUDA's vector types (float4, float2,
// int4) and a 16-byte aligned struct copied whole, as vectorised kernels write them.
//
// Exercises (block of 256 threads, lane = threadIdx.x % 32, warp = threadIdx.x / 32):
//   vec4_rows:   float4 rows[256]: store rows[t], read rows[t ^ 1] (consecutive lanes, 512 bytes
//                per warp: 4 wavefronts ideal); int4 iv[256]: store iv[t], read iv[(2 t) % 256]
//                (a 32-byte stride: 2-way).
//   vec4_column: float4 m[32][8] (rows of 128 bytes): row stores, then lane reads m[lane][warp]
//                (every lane in the same four banks: 32 distinct 16-byte words, 32 wavefronts).
//   vec2_pairs:  float2 f2[256]: store f2[t], read f2[t] (2 wavefronts ideal) and f2[(2 t) % 256]
//                (a 16-byte stride: 2-way).
//   struct_copy: struct __align__(16) P {x, y, z, w}: P ps[256] stored and loaded whole
//                (ps[t] = p; q = ps[255 - t]).
// nvcc (sm_90): STS.128 / LDS.128 for float4, int4 and P; STS.64 / LDS.64 for float2.
//
// Every warp executes every shared instruction with all 32 lanes active; shared indices depend
// only on thread indices. in holds 4 floats per thread, out 1 float per thread.

struct __align__(16) P {
  float x, y, z, w;
};

// Loads thread t's 4 input floats as a float4 (global, 16-byte aligned).
__device__ __forceinline__ float4 load4(const float* in) {
  const int g = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  return reinterpret_cast<const float4*>(in)[g];
}

__device__ __forceinline__ void store1(float* out, float v) {
  out[blockIdx.x * blockDim.x + threadIdx.x] = v;
}

__global__ void vec4_rows(const float* __restrict__ in, float* __restrict__ out) {
  __shared__ float4 rows[256];
  __shared__ int4 iv[256];
  const int t = static_cast<int>(threadIdx.x);
  const float4 v = load4(in);
  rows[t] = v;
  iv[t] = make_int4(__float_as_int(v.x), __float_as_int(v.y), t, -t);
  __syncthreads();
  const float4 a = rows[t ^ 1];
  const int4 b = iv[(2 * t) % 256];
  store1(out, a.x + a.y + a.z + a.w + __int_as_float(b.x) + static_cast<float>(b.z - b.w));
}

__global__ void vec4_column(const float* __restrict__ in, float* __restrict__ out) {
  __shared__ float4 m[32][8];
  const int t = static_cast<int>(threadIdx.x);
  m[t / 8][t % 8] = load4(in);  // row-major: conflict-free
  __syncthreads();
  const float4 c = m[t % 32][t / 32];  // down column "warp": 32 wavefronts
  store1(out, c.x * c.y + c.z * c.w);
}

__global__ void vec2_pairs(const float* __restrict__ in, float* __restrict__ out) {
  __shared__ float2 f2[256];
  const int t = static_cast<int>(threadIdx.x);
  const float4 v = load4(in);
  f2[t] = make_float2(v.x + v.z, v.y + v.w);
  __syncthreads();
  const float2 a = f2[t];
  const float2 b = f2[(2 * t) % 256];
  store1(out, a.x * b.y - a.y * b.x);
}

__global__ void struct_copy(const float* __restrict__ in, float* __restrict__ out) {
  __shared__ P ps[256];
  const int t = static_cast<int>(threadIdx.x);
  const float4 v = load4(in);
  P p;
  p.x = v.x;
  p.y = v.y;
  p.z = v.z;
  p.w = v.w;
  ps[t] = p;
  __syncthreads();
  const P q = ps[255 - t];
  store1(out, q.x + 2.0f * q.y + 3.0f * q.z + 4.0f * q.w);
}
