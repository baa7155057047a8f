// Kernels for banksim's speed benchmarks (bench/bench_banksim.cpp).

// Every thread reads `iters` floats from shared memory at a stride: a pure tracing workload.
__global__ void shared_stride_loop(float* out, int stride, int iters) {
  __shared__ float s[4096];
  const int t = threadIdx.x;
  for (int i = t; i < 4096; i += blockDim.x) s[i] = static_cast<float>(i);
  __syncthreads();
  float acc = 0.0f;
  for (int i = 0; i < iters; ++i) acc += s[(t * stride + i) & 4095];
  out[blockIdx.x * blockDim.x + t] = acc;
}

// No memory access at all, one barrier: what running a thread costs (its fiber's switches, the
// scheduler's bookkeeping). The floor under any kernel's time per thread.
__global__ void barrier_only() {
  __syncthreads();
}

// No barrier, no warp function: run as one region a thread (not cut). Each thread stages its
// element in shared memory and writes it back scaled: what a thread of a barrier-free kernel
// costs, with a shared and two global accesses.
__global__ void no_barrier_scale(float* out, const float* in) {
  __shared__ float s[1024];
  const int t = threadIdx.x;
  const int i = blockIdx.x * blockDim.x + t;
  s[t] = in[i];
  out[i] = 2.0f * s[t];
}
