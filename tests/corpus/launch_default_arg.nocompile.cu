// A launch that leaves a kernel's default argument out: nvcc accepts it; banksim cannot (it sees
// the kernel through its pointer) and says so, quoting the line as written.
__global__ void scale(float* out, float factor = 2.0f) {
  __shared__ float tile[32];
  tile[threadIdx.x] = factor;
  __syncthreads();
  out[threadIdx.x] = tile[31 - threadIdx.x];
}

void run(float* out) {
  scale<<<1, 32>>>(out);  // @launch
}
