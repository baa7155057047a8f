// Corpus: the __CUDA_ARCH__ a kernel sees is that of the GPU banksim counts for
// (CompileOptions::gpu_arch), as nvcc's -arch=sm_XY sets it in the device pass (nvcc's host pass
// parses the body too, without it: the #if keeps that pass compiling).
__global__ void cuda_arch(int* out) {
#ifdef __CUDA_ARCH__
  out[threadIdx.x] = __CUDA_ARCH__;
#else
  out[threadIdx.x] = -1;
#endif
}
