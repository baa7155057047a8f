// cuda::std::atomic_ref on shared memory: banksim stops the compile with its reason (its atomics
// would compile to plain loads and stores here: a false race, no atomic counted).
#include <cuda/std/atomic>

__global__ void k(int* out) {
  __shared__ int hits;
  if (threadIdx.x == 0) hits = 0;
  __syncthreads();
  cuda::std::atomic_ref<int>(hits).fetch_add(1);
  __syncthreads();
  if (threadIdx.x == 0) *out = hits;
}
