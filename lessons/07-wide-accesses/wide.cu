// Lesson 07 - wide accesses: 8- and 16-byte loads and the double-precision transpose baseline.
//   build/bin/banksim profile lessons/07-wide-accesses/wide.cu --kernel wide_read
//       --block 32 --arg 32 --arg 1
constexpr int kTile = 32;
constexpr int kRows = 8;
constexpr int kWarp = 32;

//! [wide_read]
// pattern 0: double s[t]          -> 2 phases of 16 lanes, 2 wavefronts (ideal 2)
// pattern 1: float4 s[t]          -> 4 phases of 8 lanes, 4 wavefronts (ideal 4)
// pattern 2: float4 s[0], all     -> the 16-byte load pairing: 2 wavefronts (ideal 2)
// pattern 3: float4 s[2 * (t % 16)] -> each phase touches 2 words per bank: 8 wavefronts (ideal 4)
__global__ void wide_read(float* out, int pattern) {
  __shared__ double d[kWarp];
  __shared__ float4 f[2 * kWarp];
  const int t = threadIdx.x;
  d[t] = t;
  f[t] = make_float4(t, t, t, t);
  f[t + kWarp] = make_float4(t, t, t, t);
  __syncthreads();
  // Use all four components of a float4: a compiler may narrow a load of one component to 4 bytes.
  float4 v = make_float4(0, 0, 0, 0);
  if (pattern == 0) v.x = static_cast<float>(d[t]);  // 8-byte load
  if (pattern == 1) v = f[t];                        // 16-byte loads from here on
  if (pattern == 2) v = f[0];
  if (pattern == 3) v = f[2 * (t % 16)];
  out[t] = v.x + v.y + v.z + v.w;
}
//! [wide_read]

//! [transpose_double_naive]
__global__ void transpose_double_naive(double* out, const double* in, int n) {
  __shared__ double tile[kTile][kTile];
  const int x = blockIdx.x * kTile + threadIdx.x;
  const int y = blockIdx.y * kTile + threadIdx.y;
  for (int j = 0; j < kTile; j += kRows) {
    if (x < n && y + j < n) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * n + x];
  }
  __syncthreads();
  const int ox = blockIdx.y * kTile + threadIdx.x;
  const int oy = blockIdx.x * kTile + threadIdx.y;
  for (int j = 0; j < kTile; j += kRows) {
    // half-warp of 16 lanes: words 64tx + 2(ty+j), +1: two banks, 16 words each
    if (ox < n && oy + j < n) out[(oy + j) * n + ox] = tile[threadIdx.x][threadIdx.y + j];
  }
}
//! [transpose_double_naive]
