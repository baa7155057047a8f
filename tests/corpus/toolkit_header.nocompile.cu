// toolkit_header.nocompile.cu - a kernel file that includes a CUDA toolkit header banksim has no
// stand-in for (cuRAND's device API): banksim must name the header, the line that includes it,
// and what to do, whether or not the toolkit is installed.
#include <curand_kernel.h>

__global__ void fill(float* out) {
  __shared__ float s[32];
  s[threadIdx.x] = 1.0f;
  __syncthreads();
  out[threadIdx.x] = s[threadIdx.x];
}
