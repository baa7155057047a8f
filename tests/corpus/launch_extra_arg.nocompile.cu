// A launch with one argument more than the kernel has parameters: banksim says so, quoting the
// line as written (not its rewrite of it).
__global__ void scale(float* out, float factor) {
  out[threadIdx.x] = factor;
}

void run(float* out) {
  scale<<<1, 32>>>(out, 2.0f, 7);  // @launch
}
