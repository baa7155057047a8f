// undefined_functions.cu - a kernel file whose host code calls functions defined elsewhere: one of
// the program's other source files (is_pow2) and a library banksim does not link (a cuBLAS-style
// create call). banksim runs kernels, not main: the file loads and its kernels run; a kernel that
// itself calls a function nothing here defines (relocatable device code from another .cu) stops
// with a message naming it.
#include <cuda_runtime.h>

extern "C" bool is_pow2(unsigned x);           // in the program's other source file
extern "C" int library_create(void** handle);  // in a library the program links
__device__ float scale_elsewhere(float x);     // in another .cu (nvcc -rdc=true)

__global__ void copy(float* out, const float* in) {
  out[threadIdx.x] = in[threadIdx.x];
}

// nvcc compiles this only with -rdc=true (separate compilation), where the linker finds it.
#if defined(__BANKSIM__) || defined(__CUDACC_RDC__)
__global__ void calls_elsewhere(float* out) {
  out[threadIdx.x] = scale_elsewhere(static_cast<float>(threadIdx.x));  // @elsewhere
}
#endif

int main() {
  void* handle = nullptr;
  if (!is_pow2(32) || library_create(&handle) != 0) return 1;
  copy<<<1, 32>>>(nullptr, nullptr);
  return 0;
}
