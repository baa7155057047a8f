// coop_wide_check.cu - on the H200, the values of tests/corpus/coop_groups.cu's tile_shuffle_wide
// (a uint4 through tile.shfl_xor, a 12-byte struct through shfl_down in tiles of 8) and
// multi_warp_ranks (64-thread tiles' ranks, a 128-thread tile's sync), checked against the
// formulas the banksim tests use; and cudaMallocPitch's pitch for a few widths (banksim rounds
// to 512 bytes).
//   nvcc -arch=sm_90 -I. -o coop_wide_check coop_wide_check.cu && ./coop_wide_check
#include <cstdio>

#include "../../tests/corpus/coop_groups.cu"

int main() {
  uint4* wide;
  float* triples;
  int* ranks;
  cudaMallocManaged(&wide, 32 * sizeof(uint4));
  cudaMallocManaged(&triples, 96 * sizeof(float));
  cudaMallocManaged(&ranks, 128 * sizeof(int));
  tile_shuffle_wide<<<1, 32>>>(wide, triples);
  multi_warp_ranks<<<1, 128>>>(ranks);
  if (cudaDeviceSynchronize() != cudaSuccess) return 1;
  int bad = 0;
  for (unsigned lane = 0; lane < 32; ++lane) {
    const unsigned p = lane ^ 1u;
    const uint4 w = wide[lane];
    bad += w.x != p || w.y != 2 * p || w.z != 3 * p || w.w != 4 * p;
    const unsigned src = lane % 8 < 6 ? lane + 2 : lane;
    bad += triples[3 * lane] != static_cast<float>(src) ||
           triples[3 * lane + 1] != 0.5f * static_cast<float>(src) ||
           triples[3 * lane + 2] != -static_cast<float>(src);
  }
  std::printf("tile_shuffle_wide: %d of 32 lanes differ from the banksim test's formulas\n", bad);
  bad = 0;
  for (int t = 0; t < 128; ++t) bad += ranks[t] != (t % 64) * 1000 + 2 * 100 + (127 - t) / 64;
  std::printf("multi_warp_ranks: %d of 128 threads differ\n", bad);
  for (size_t width : {1, 100, 512, 513, 1000, 4096, 4100}) {
    void* p;
    size_t pitch = 0;
    cudaMallocPitch(&p, &pitch, width, 4);
    std::printf("cudaMallocPitch width %zu: pitch %zu\n", width, pitch);
    cudaFree(p);
  }
  return 0;
}
