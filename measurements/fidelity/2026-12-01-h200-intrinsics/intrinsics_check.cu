// Prints what tests/corpus/intrinsics.cu's two kernels write on the GPU, one kernel a line:
// "warp_collectives v0 v1 ...", "integer_math v0 v1 ..." (decimal). The banksim test
// "intrinsics: ..." compares its own outputs with the H200's (intrinsics-h200.txt).
//   nvcc -O3 -std=c++17 -arch=sm_90 intrinsics_check.cu -o intrinsics_check && ./intrinsics_check
#include <cstdio>
#include <vector>

#include "../../tests/corpus/intrinsics.cu"

int main() {
  int* a = nullptr;
  unsigned* b = nullptr;
  cudaMalloc(&a, 12 * 32 * sizeof(int));
  cudaMalloc(&b, 16 * 32 * sizeof(unsigned));
  warp_collectives<<<1, 32>>>(a);
  integer_math<<<1, 32>>>(b);
  if (cudaDeviceSynchronize() != cudaSuccess) {
    std::printf("error\n");
    return 1;
  }
  std::vector<int> ha(12 * 32);
  std::vector<unsigned> hb(16 * 32);
  cudaMemcpy(ha.data(), a, ha.size() * sizeof(int), cudaMemcpyDeviceToHost);
  cudaMemcpy(hb.data(), b, hb.size() * sizeof(unsigned), cudaMemcpyDeviceToHost);
  std::printf("warp_collectives");
  for (int v : ha) std::printf(" %d", v);
  std::printf("\ninteger_math");
  for (unsigned v : hb) std::printf(" %u", v);
  std::printf("\n");
  return 0;
}
