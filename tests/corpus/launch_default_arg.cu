// A launch that leaves a kernel's default argument out (nvcc accepts it; so does banksim: its
// source rewrite gives the launch the kernel's parameter list, defaults and all).
__global__ void scale(float* out, float factor = 2.0f, int n = 32) {
  __shared__ float tile[32];
  tile[threadIdx.x] = factor;
  __syncthreads();
  if (static_cast<int>(threadIdx.x) < n) out[threadIdx.x] = tile[31 - threadIdx.x];
}

void run(float* out) {
  scale<<<1, 32>>>(out);  // @launch
  scale<<<1, 32>>>(out, 3.0f);
  scale<<<dim3(1), dim3(32), 0, 0>>>(out, 3, 16);
}
