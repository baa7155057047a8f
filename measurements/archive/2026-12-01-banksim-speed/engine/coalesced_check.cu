// The H200's answer for tests/corpus/coop_groups.cu's aggregated_append with the flags of the
// banksim test "cooperative groups: coalesced_threads() in a branch is the branch's lanes":
// each flagged thread's group size, rank and cg::reduce sum, the counter and the slots.
//   nvcc -O3 -std=c++17 -arch=sm_90 coalesced_check.cu -o coalesced_check && ./coalesced_check
#include <cstdio>
#include <vector>

#include "../../tests/corpus/coop_groups.cu"

int main() {
  const int n = 128;
  std::vector<int> flags(n);
  for (int i = 0; i < n; ++i) flags[i] = (i * 7 % 3 == 0) && (i / 32 != 1);
  int *counter, *slots, *info, *dflags;
  cudaMalloc(&counter, sizeof(int));
  cudaMalloc(&slots, n * sizeof(int));
  cudaMalloc(&info, 3 * n * sizeof(int));
  cudaMalloc(&dflags, n * sizeof(int));
  cudaMemset(counter, 0, sizeof(int));
  cudaMemset(slots, 0xff, n * sizeof(int));
  cudaMemset(info, 0, 3 * n * sizeof(int));
  cudaMemcpy(dflags, flags.data(), n * sizeof(int), cudaMemcpyHostToDevice);
  aggregated_append<<<2, 64>>>(counter, slots, info, dflags);
  const cudaError_t err = cudaDeviceSynchronize();
  std::vector<int> h_info(3 * n), h_slots(n);
  int h_counter = 0;
  cudaMemcpy(h_info.data(), info, 3 * n * sizeof(int), cudaMemcpyDeviceToHost);
  cudaMemcpy(h_slots.data(), slots, n * sizeof(int), cudaMemcpyDeviceToHost);
  cudaMemcpy(&h_counter, counter, sizeof(int), cudaMemcpyDeviceToHost);
  int flagged = 0, bad = 0;
  for (int i = 0; i < n; ++i) {
    if (!flags[i]) continue;
    ++flagged;
    int size = 0, rank = 0, sum = 0;
    for (int j = i / 32 * 32; j < i / 32 * 32 + 32; ++j) {
      if (!flags[j]) continue;
      ++size;
      sum += j;
      if (j < i) ++rank;
    }
    const bool ok = h_info[3 * i] == size && h_info[3 * i + 1] == rank && h_info[3 * i + 2] == sum;
    if (!ok) {
      ++bad;
      std::printf("thread %d: size %d rank %d sum %d, expected %d %d %d\n", i, h_info[3 * i],
                  h_info[3 * i + 1], h_info[3 * i + 2], size, rank, sum);
    }
  }
  std::vector<int> seen(n, 0);
  for (int k = 0; k < h_counter && k < n; ++k) {
    if (h_slots[k] >= 0 && h_slots[k] < n) seen[h_slots[k]] += 1;
  }
  for (int i = 0; i < n; ++i) bad += seen[i] != flags[i];
  std::printf("cuda: %s; flagged %d, counter %d, mismatches %d: %s\n", cudaGetErrorString(err),
              flagged, h_counter, bad, bad == 0 && h_counter == flagged ? "PASS" : "FAIL");
  return bad == 0 && h_counter == flagged ? 0 : 1;
}
