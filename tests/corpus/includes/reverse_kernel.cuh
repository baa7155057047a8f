// reverse_kernel.cuh - a kernel defined in a header (as cuda-samples keep theirs in .cuh files),
// launched from tests/corpus/kernel_in_header.cu: banksim profiles it by name from that file.
#pragma once

__global__ void reverse_in_header(float* out, const float* in) {
  __shared__ float tile[64];
  tile[threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = tile[63 - threadIdx.x];
}
