// bad_kernels.cu - one known-bad (or instructive) kernel per mode, run on the H200 under each
// compute-sanitizer tool and under ncu, so that the grader's parsers are tested on the tools'
// real output (tests/gpu-fixtures/*.txt, *.csv; scripts/gpu-integrity.sh regenerates them).
//   ./bad_kernels MODE     MODE: oob misaligned race uninit divergent atomics
#include <cstdio>
#include <cstring>

__global__ void oob_shared(float* out) {
  __shared__ float tile[32];
  tile[threadIdx.x + 1] = 1.0f;  // thread 31 writes tile[32]: one past the end
  __syncthreads();
  out[threadIdx.x] = tile[threadIdx.x];
}

__global__ void misaligned_shared(float* out) {
  __shared__ float raw[80];
  for (int i = threadIdx.x; i < 80; i += 32) raw[i] = static_cast<float>(i);
  __syncthreads();
  const float2 v = reinterpret_cast<const float2*>(raw + 1)[threadIdx.x];  // 8 bytes at 4 mod 8
  out[threadIdx.x] = v.x + v.y;
}

__global__ void race(float* out) {
  __shared__ float s[64];
  s[threadIdx.x] = static_cast<float>(threadIdx.x);
  out[threadIdx.x] = s[(threadIdx.x + 32) % 64];  // no __syncthreads(): another warp's word
}

__global__ void uninit(float* out, const float* in) {
  out[threadIdx.x] = in[threadIdx.x];  // `in` was allocated and never written
}

__global__ void divergent(float* out) {
  __shared__ float s[64];
  s[threadIdx.x] = 1.0f;
  if (threadIdx.x < 16) __syncthreads();  // only some threads reach the barrier
  out[threadIdx.x] = s[threadIdx.x];
}

// Predicated shared stores and both kinds of shared atomics, for ncu's source page.
__global__ void atomics(float* out, int* hist, int n) {
  __shared__ int bins[32];
  __shared__ float sums[32];
  if (threadIdx.x < 32) {
    bins[threadIdx.x] = 0;
    sums[threadIdx.x] = 0.0f;
  }
  __syncthreads();
  atomicAdd(&bins[(threadIdx.x * 32) % 1024 / 32], 1);            // ATOMS.ADD, lanes on 32 words
  atomicAdd(&sums[0], static_cast<float>(threadIdx.x));           // CAS loop, all on one word
  if (threadIdx.x % 3 == 0 && n > 0) bins[threadIdx.x % 32] = n;  // predicated STS
  __syncthreads();
  if (threadIdx.x < 32) {
    hist[threadIdx.x] = bins[threadIdx.x];
    out[threadIdx.x] = sums[threadIdx.x];
  }
}

// Partial 16-byte requests, for ncu's ideal: 4 lanes, one per quarter-warp, store to distinct
// banks (the hardware needs 4 wavefronts, ncu calls 1 ideal); then 8 lanes of one quarter-warp
// store to one 16-byte column of rows 128 bytes apart (8-way: 8 wavefronts).
__global__ void partial16(float4* out) {
  __shared__ float4 tile[8][8];
  const int lane = threadIdx.x;
  if (lane % 8 == 0) tile[lane / 8][(lane / 8) ^ 1] = make_float4(1.f, 2.f, 3.f, 4.f);
  if (lane < 8) tile[lane][7] = make_float4(5.f, 6.f, 7.f, 8.f);
  __syncthreads();
  out[lane] = tile[lane % 8][lane / 8];
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "";
  float* out;
  float* in;
  int* hist;
  cudaMalloc(&out, 1024 * sizeof(float));
  cudaMalloc(&in, 1024 * sizeof(float));
  cudaMalloc(&hist, 1024 * sizeof(int));
  if (!std::strcmp(mode, "oob")) oob_shared<<<1, 32>>>(out);
  if (!std::strcmp(mode, "misaligned")) misaligned_shared<<<1, 32>>>(out);
  if (!std::strcmp(mode, "race")) race<<<1, 64>>>(out);
  if (!std::strcmp(mode, "uninit")) uninit<<<1, 32>>>(out, in);
  if (!std::strcmp(mode, "divergent")) divergent<<<1, 64>>>(out);
  if (!std::strcmp(mode, "atomics")) atomics<<<1, 64>>>(out, hist, 5);
  if (!std::strcmp(mode, "partial16")) partial16<<<1, 32>>>(reinterpret_cast<float4*>(out));
  const cudaError_t e = cudaDeviceSynchronize();
  std::printf("%s: %s\n", mode, cudaGetErrorString(e));
  return e == cudaSuccess ? 0 : 1;
}
