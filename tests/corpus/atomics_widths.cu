// atomics_widths.cu - shared atomics (docs/bank-rules.md R6, numbers measured on the H200 with
// ncu: measurements/fidelity/2026-11-30-h200-atomics/), lanes of one call site using different
// widths, and misaligned accesses. Lines under test are found by their "// @marker" comments.

// pattern: 0 s[lane], 1 s[0], 2 s[2*lane], 3 s[32*lane] (64-bit: s[16*lane]), 4 s[lane/2]
__device__ inline int atom_index(int lane, int pattern, int one_bank) {
  return pattern == 0   ? lane
         : pattern == 1 ? 0
         : pattern == 2 ? 2 * lane
         : pattern == 3 ? one_bank * lane
                        : lane / 2;
}

__global__ void atom_int(int* out, int pattern) {
  __shared__ int s[1024];
  for (int i = threadIdx.x; i < 1024; i += blockDim.x) s[i] = 0;
  __syncthreads();
  atomicAdd(&s[atom_index(threadIdx.x & 31, pattern, 32)], 1);  // @atom_int
  __syncthreads();
  for (int i = threadIdx.x; i < 1024; i += blockDim.x) out[i] = s[i];
}

__global__ void atom_float(float* out, int pattern) {
  __shared__ float s[1024];
  for (int i = threadIdx.x; i < 1024; i += blockDim.x) s[i] = 0.0f;
  __syncthreads();
  atomicAdd(&s[atom_index(threadIdx.x & 31, pattern, 32)], 1.0f);  // @atom_float
  __syncthreads();
  for (int i = threadIdx.x; i < 1024; i += blockDim.x) out[i] = s[i];
}

__global__ void atom_u64(unsigned long long* out, int pattern) {
  __shared__ unsigned long long s[512];
  for (int i = threadIdx.x; i < 512; i += blockDim.x) s[i] = 0;
  __syncthreads();
  atomicAdd(&s[atom_index(threadIdx.x & 31, pattern, 16)], 1ull);  // @atom_u64
  __syncthreads();
  for (int i = threadIdx.x; i < 512; i += blockDim.x) out[i] = s[i];
}

// Lane t copies 4 bytes when t is even and 8 when it is odd, from one memcpy call site: every
// lane must be counted (two requests, one per width), none dropped.
__global__ void mixed_widths(float* out) {
  __shared__ float s[256];
  const int t = threadIdx.x;
  s[2 * t] = static_cast<float>(t);
  s[2 * t + 1] = 0.0f;
  __syncthreads();
  float v[2] = {0.0f, 0.0f};
  __builtin_memcpy(v, &s[8 * (t / 4) + 2 * (t % 4)], (t % 2 == 0) ? 4 : 8);  // @mixed
  out[t] = v[0] + v[1];
}

// A float2 view of an odd word: misaligned on the GPU ("misaligned address").
__global__ void misaligned_float2(float* out) {
  __shared__ float raw[80];
  const int t = threadIdx.x;
  for (int i = t; i < 80; i += 32) raw[i] = static_cast<float>(i);
  __syncthreads();
  const float2 v = reinterpret_cast<const float2*>(raw + 1)[t];  // @misaligned
  out[t] = v.x + v.y;
}

// A float tile padded by 2 floats (rows of 136 bytes) read as float4: every other row starts 8
// bytes off a 16-byte boundary. clang proves only 8-byte alignment and would split the access;
// nvcc keeps LDS.128 and the H200 stops with "misaligned address" (tests/students/06).
__global__ void misaligned_float4_row(float* out) {
  __shared__ __align__(16) float tile[2][34];
  const int t = threadIdx.x;
  for (int i = t; i < 68; i += 32) tile[i / 34][i % 34] = static_cast<float>(i);
  __syncthreads();
  if (t < 8) {
    const float4 v = *reinterpret_cast<const float4*>(&tile[t / 4][4 * (t % 4)]);  // @float4row
    out[t] = v.x + v.w;
  }
}

// Two loads on one line: the first conflict-free, the second 32-way. Each is its own access,
// with its own degree (not an average of 16.5).
__global__ void two_loads_one_line(float* out) {
  __shared__ float tile[32][32];
  for (int i = threadIdx.x; i < 1024; i += 32) tile[i / 32][i % 32] = static_cast<float>(i);
  __syncthreads();
  const int t = threadIdx.x;
  out[t] = tile[0][t] + tile[t][0];  // @two_loads
}

// Lanes 16-31 return, then lanes 8-15 read them with a shuffle: undefined on the GPU.
__global__ void shuffle_from_exited(float* out) {
  const int t = threadIdx.x;
  out[t] = 0.0f;
  if (t >= 16) return;
  const float v = __shfl_down_sync(0xffffu, static_cast<float>(t), 8);  // @shfl_exited
  out[t] = v;
}

// The defined version: a reduction whose lanes all take part.
__global__ void shuffle_all_lanes(float* out) {
  float v = static_cast<float>(threadIdx.x);
  for (int d = 16; d > 0; d /= 2) v += __shfl_down_sync(0xffffffffu, v, d);
  out[threadIdx.x] = v;
}
