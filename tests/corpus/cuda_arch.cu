// Corpus: the __CUDA_ARCH__ a kernel sees is that of the GPU banksim counts for
// (CompileOptions::gpu_arch), as nvcc's -arch=sm_XY sets it in the device pass.
__global__ void cuda_arch(int* out) {
  out[threadIdx.x] = __CUDA_ARCH__;
}
