// merge_across_lines.cu - two 4-byte shared loads of neighbouring words on consecutive lines,
// which nvcc (sm_90) merges into one LDS.64 that it gives one of the lines: banksim must count
// one 8-byte request per warp (2 wavefronts, conflict-free), as the GPU executes, not two 4-byte
// requests with a 2-way conflict each.
__global__ void pairs(const float* in, float* out) {
  __shared__ float s[64];
  s[threadIdx.x] = in[threadIdx.x];
  s[threadIdx.x + 32] = in[threadIdx.x + 32];
  __syncthreads();
  float a = s[2 * threadIdx.x];
  float b = s[2 * threadIdx.x + 1];
  out[threadIdx.x] = a * b;
}
