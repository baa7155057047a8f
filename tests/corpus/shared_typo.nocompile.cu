// A typo in a __shared__ declaration (a line banksim's rewrite changes): the error names the
// student's column and quotes the student's line.
__global__ void typo(float* out) {
  __shared__ floot tile[32][33];
  tile[threadIdx.x][0] = 1.0f;
  __syncthreads();
  out[threadIdx.x] = tile[0][threadIdx.x];
}
