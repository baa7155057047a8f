// Corpus: the worked examples of docs/bank-rules.md as real CUDA, one warp (32 threads) each.
// The access under test carries a "// @name" marker that the tests look up.
// Run one:  build/bin/banksim profile tests/corpus/bank_rules.cu --kernel float_stride
//             --block 32 --arg 32 --arg 2        (stride 2: 2 wavefronts per request)
constexpr int kWarp = 32;

// lane t reads s[t * stride]: word t*stride -> bank (t*stride) % 32, gcd(stride, 32)-way
__global__ void float_stride(float* out, int stride) {
  __shared__ float s[kWarp * 33];
  const int t = threadIdx.x;
  for (int i = t; i < kWarp * 33; i += kWarp) s[i] = static_cast<float>(i);
  __syncthreads();
  out[t] = s[t * stride];  // @float_stride
}

// tile[r][c ^ r]: XOR swizzle; a row and a column of the logical tile are both conflict-free
__global__ void swizzle_read(float* out, int fixed) {
  __shared__ float tile[kWarp][kWarp];
  const int t = threadIdx.x;
  for (int r = 0; r < kWarp; ++r) tile[r][t ^ r] = static_cast<float>(r * kWarp + t);  // @swz_store
  __syncthreads();
  const float column = tile[t][fixed ^ t];   // @swz_column: lane t reads (t, fixed), bank fixed^t
  const float row = tile[fixed][t ^ fixed];  // @swz_row: lane t reads (fixed, t), bank t^fixed
  out[t] = column + row;
}

// every lane reads the same word: one wavefront (broadcast)
__global__ void broadcast_read(float* out) {
  __shared__ float s[kWarp];
  const int t = threadIdx.x;
  s[t] = static_cast<float>(t);
  __syncthreads();
  out[t] = s[5];  // @broadcast
}

// char s[lane]: 32 bytes in 8 words, four lanes per word: one wavefront
__global__ void char_read(int* out) {
  __shared__ char s[4 * kWarp];
  const int t = threadIdx.x;
  for (int i = t; i < 4 * kWarp; i += kWarp) s[i] = static_cast<char>(i);
  __syncthreads();
  out[t] = s[t];  // @char
}

// short at stride 32 shorts: word 16*lane -> banks 0 and 16, 16 words each: 16 wavefronts
__global__ void short_stride(int* out) {
  __shared__ short s[kWarp * kWarp];
  const int t = threadIdx.x;
  for (int i = t; i < kWarp * kWarp; i += kWarp) s[i] = static_cast<short>(i);
  __syncthreads();
  out[t] = s[t * kWarp];  // @short
}

// double s[lane]: 8-byte accesses in two half-warp phases, conflict-free: 2 / 2
__global__ void double_read(double* out) {
  __shared__ double s[kWarp];
  const int t = threadIdx.x;
  s[t] = t;
  __syncthreads();
  out[t] = s[t];  // @double_read
}

// column store into double sm[32][32]: each half-warp's 16 lanes hit the same two banks: 32 / 2
__global__ void double_column_store(double* out, int y) {
  __shared__ double sm[kWarp][kWarp];
  const int t = threadIdx.x;
  sm[t][y] = t;  // @double_column
  __syncthreads();
  out[t] = sm[t][y];
}

// float4 accesses: 16 bytes per lane, four quarter-warp phases
__global__ void float4_patterns(float* out, int pattern) {
  __shared__ float4 s[8 * kWarp];  // 4 KiB
  const int t = threadIdx.x;
  for (int i = t; i < 8 * kWarp; i += kWarp) s[i] = make_float4(i, i, i, i);
  __syncthreads();
  int index = t;                             // pattern 0: contiguous, 4 / 4
  if (pattern == 1) index = 8 * t;           // 128 B apart: all lanes on banks 0-3, 32 / 4
  if (pattern == 2) index = 3;               // one address: 2 / 2 (16-byte load pairing)
  if (pattern == 3) index = t < 16 ? 1 : 9;  // two addresses by half-warp: 2 / 2
  if (pattern == 4) index = 2 * (t % 16);    // 32 B apart, repeating: 8 / 4
  if (pattern == 5) index = t % 4;           // 16 B apart, repeating every 4 lanes: 4 / 4
  const float4 v = s[index];                 // @float4
  out[t] = v.x + v.y + v.z + v.w;
}
