// divergent_loops.cu - loops without a barrier in which the lanes of a warp take turns at a
// shared-memory load: the hardware issues each iteration's load once for the lanes active in that
// iteration, so a lane's k-th load and another lane's k-th load can belong to different
// iterations. A request is what one issue serves: the lanes that execute the same dynamic
// instance of the instruction together, not "every lane's k-th execution".
//
// Exercises (one warp per block unless said otherwise; `trips` iterations):
//   take_turns:    in iteration k a lane loads only when (lane + k) % 4 != 0, the address moving
//                  with k (three lanes in four load each time).
//   parity_arms:   in iteration k the lanes whose (lane / 4) parity equals k's load from one
//                  array, the others from another (both arms of an if are shared loads).
//   uniform_trips: every lane loads in every iteration (the control: no divergence).
#include <cuda_runtime.h>

__global__ void take_turns(float* out, int trips) {
  __shared__ float s[1024];
  for (int i = threadIdx.x; i < 1024; i += blockDim.x) s[i] = static_cast<float>(i);
  __syncthreads();
  const int lane = threadIdx.x % 32;
  float acc = 0.0f;
  for (int k = 0; k < trips; ++k) {
    if ((lane + k) % 4 == 0) continue;
    acc += s[(lane * 8 + k * 3) % 1024];
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

__global__ void parity_arms(float* out, int trips) {
  __shared__ float a[1024];
  __shared__ float b[1024];
  for (int i = threadIdx.x; i < 1024; i += blockDim.x) {
    a[i] = static_cast<float>(i);
    b[i] = static_cast<float>(2 * i);
  }
  __syncthreads();
  const int lane = threadIdx.x % 32;
  float acc = 0.0f;
  for (int k = 0; k < trips; ++k) {
    if ((lane / 4) % 2 == k % 2)
      acc += a[(lane * 4 + k) % 1024];
    else
      acc += b[(lane * 2 + 64 * k) % 1024];
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

__global__ void uniform_trips(float* out, int trips) {
  __shared__ float s[1024];
  for (int i = threadIdx.x; i < 1024; i += blockDim.x) s[i] = static_cast<float>(i);
  __syncthreads();
  const int lane = threadIdx.x % 32;
  float acc = 0.0f;
  for (int k = 0; k < trips; ++k) acc += s[(lane * 8 + k * 3) % 1024];
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}
