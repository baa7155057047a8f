// Corpus: CUDA features banksim must support: dynamic shared memory, two shared arrays, a 3-D
// block, atomics on shared memory, __syncwarp.

// Reverses n floats through dynamic shared memory (launch with n * 4 bytes).
__global__ void reverse_dynamic(float* out, const float* in, int n) {
  extern __shared__ float buf[];
  const int t = threadIdx.x;
  if (t < n) buf[t] = in[t];  // @dyn_store
  __syncthreads();
  if (t < n) out[t] = buf[n - 1 - t];  // @dyn_load
}

// Two arrays in one kernel: each line reports its own variable.
__global__ void two_arrays(float* out) {
  __shared__ float alpha[64];
  __shared__ int beta[64];
  const int t = threadIdx.x;
  alpha[t] = static_cast<float>(t);  // @alpha_store
  beta[t] = 2 * t;                   // @beta_store
  __syncthreads();
  out[t] = alpha[63 - t] + static_cast<float>(beta[(t * 2) % 64]);  // @two_loads
}

// A (8,4,2) block: warp 0 is z=0, y=0..3, x=0..7. s[z][y][x] with 32-float rows puts lanes
// (x, y) at word 32y + x: banks x only, 4 words each -> 4-way, although "each row is contiguous".
__global__ void block3d(float* out) {
  __shared__ float s[2][4][32];
  const int x = threadIdx.x, y = threadIdx.y, z = threadIdx.z;
  s[z][y][x] = static_cast<float>(x + 8 * y + 32 * z);  // @block3d_store
  __syncthreads();
  const int linear = x + 8 * y + 32 * z;
  out[linear] = s[z][y][x];
}

// Shared-memory histogram with atomics: atomics do not race with each other.
__global__ void histogram(int* bins_out, const int* values, int n) {
  __shared__ int bins[16];
  const int t = threadIdx.x;
  if (t < 16) bins[t] = 0;
  __syncthreads();
  for (int i = t; i < n; i += blockDim.x) atomicAdd(&bins[values[i] % 16], 1);
  __syncthreads();
  if (t < 16) bins_out[t] = bins[t];
}

// Lanes exchange through shared memory with __syncwarp between write and read: no race.
__global__ void warp_exchange(float* out) {
  __shared__ float s[32];
  const int t = threadIdx.x;
  s[t] = static_cast<float>(t);
  __syncwarp();
  out[t] = s[31 - t];
}
