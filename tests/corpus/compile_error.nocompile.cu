// Corpus: a file that does not compile (a typo on line 6); banksim must name file and line.
__global__ void broken(float* out) {
  __shared__ float tile[32];
  tile[threadIdx.x] = 1.0f;
  __syncthreads();
  out[threadIdx.x] = tyle[threadIdx.x];
}
