// kernel_pointers.cu - kernels launched through pointers, as benchmark harnesses do: an array of
// kernel pointers indexed at run time, a pointer in a struct, a parenthesised dereference, and a
// qualified template instance.
#include <cuda_runtime.h>

namespace tiles {
template <int Pad>
__global__ void column(const float* in, float* out) {
  __shared__ float t[32][32 + Pad];
  for (int r = 0; r < 32; ++r) t[r][threadIdx.x] = in[r * 32 + threadIdx.x];
  __syncthreads();
  float acc = 0.0f;
  for (int r = 0; r < 32; ++r) acc += t[threadIdx.x][r];
  out[threadIdx.x] = acc;
}
}  // namespace tiles

__global__ void row(const float* in, float* out) {
  __shared__ float t[32];
  t[threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = t[threadIdx.x];
}

typedef void (*Kernel)(const float*, float*);
struct Table {
  Kernel fn[2];
};

// Launches every kernel once each way (host code banksim compiles; the CLI runs one kernel).
void run_all(const float* in, float* out) {
  Kernel kernels[] = {row, tiles::column<0>, tiles::column<1>};
  for (int i = 0; i < 3; ++i) kernels[i]<<<1, 32>>>(in, out);
  Table table = {{row, tiles::column<1>}};
  table.fn[1]<<<dim3(1), dim3(32)>>>(in, out);
  Kernel fp = kernels[2];
  (*fp)<<<1, 32>>>(in, out);
  tiles::column<0><<<1, 32>>>(in, out);
}
