// Corpus: loops in which the lanes of a warp diverge. The hardware issues a shared access once
// per iteration for the lanes active in it, so a request is what one iteration's issue serves,
// not "each lane's k-th execution" (a lane that skipped an iteration would pair its next one
// with the other lanes' current one). tests/everyday/divergent_loops.cu is the family measured
// on the H200; these are the checks of the grouping itself.

// In iteration k the lanes with (lane + k) % 4 == 0 skip the load: one request per iteration.
// Lane l reads word 8l + 3k -> bank (8l + 3k) % 32, one bank per l % 4; the skipping lanes are
// one such class, so 3 banks of 8 lanes on 8 distinct words each -> 8 wavefronts per request.
__global__ void take_turns(float* out, int trips) {
  __shared__ float s[1024];
  for (int i = threadIdx.x; i < 1024; i += blockDim.x) s[i] = static_cast<float>(i);
  __syncthreads();
  const int lane = threadIdx.x % 32;
  float acc = 0.0f;
  for (int k = 0; k < trips; ++k) {
    if ((lane + k) % 4 == 0) continue;
    acc += s[(lane * 8 + k * 3) % 1024];  // @take_turns_load
  }
  out[threadIdx.x] = acc;
}

// The same with its barrier in a function it calls: banksim runs it with a fiber per thread,
// not cut into regions; the grouping must not depend on that.
__device__ __noinline__ void wait_for_block() {
  __syncthreads();
}

__global__ void take_turns_fibers(float* out, int trips) {
  __shared__ float s[1024];
  for (int i = threadIdx.x; i < 1024; i += blockDim.x) s[i] = static_cast<float>(i);
  wait_for_block();
  const int lane = threadIdx.x % 32;
  float acc = 0.0f;
  for (int k = 0; k < trips; ++k) {
    if ((lane + k) % 4 == 0) continue;
    acc += s[(lane * 8 + k * 3) % 1024];  // @take_turns_fibers_load
  }
  out[threadIdx.x] = acc;
}

// An inner loop of lane % 3 trips, then a load every lane makes once per outer iteration: the
// lanes meet again after the inner loop, so that load is one request per outer iteration,
// lane l reading word l + 32k -> bank l: conflict-free.
__global__ void lane_trips(float* out, int trips) {
  __shared__ float s[1024];
  for (int i = threadIdx.x; i < 1024; i += blockDim.x) s[i] = static_cast<float>(i);
  __syncthreads();
  const int lane = threadIdx.x % 32;
  float acc = 0.0f;
  for (int k = 0; k < trips; ++k) {
    for (int j = 0; j < lane % 3; ++j) acc += s[(lane + 32 * j) % 1024];  // @inner_load
    acc += s[(lane + 32 * k) % 1024];                                     // @after_inner_load
  }
  out[threadIdx.x] = acc;
}

// take_turns with its shared load in a function it calls, on a pointer it is given: the loop
// keeps its epoch only if the pass sees that the call may read shared memory (a parameter of a
// called function may point there; only a kernel's own parameters are device memory).
__device__ __noinline__ float load_at(const float* p, int i) {
  return p[i];  // @load_at_load
}

__global__ void take_turns_call(float* out, int trips) {
  __shared__ float s[1024];
  for (int i = threadIdx.x; i < 1024; i += blockDim.x) s[i] = static_cast<float>(i);
  __syncthreads();
  const int lane = threadIdx.x % 32;
  float acc = 0.0f;
  for (int k = 0; k < trips; ++k) {
    if ((lane + k) % 4 == 0) continue;
    acc += load_at(s, (lane * 8 + k * 3) % 1024);
  }
  out[threadIdx.x] = acc;
}

// take_turns through a pointer stepped by the loop (a phi of pointers into s), beside a global
// read the loop also makes: the loop keeps its epoch.
__global__ void take_turns_pointer(float* out, const float* in, int trips) {
  __shared__ float s[1024];
  for (int i = threadIdx.x; i < 1024; i += blockDim.x) s[i] = static_cast<float>(i);
  __syncthreads();
  const int lane = threadIdx.x % 32;
  float acc = 0.0f;
  const float* p = s + lane * 8;
  for (int k = 0; k < trips; ++k, p += 3) {
    if ((lane + k) % 4 == 0) continue;
    acc += *p * in[k];  // @take_turns_pointer_load
  }
  out[threadIdx.x] = acc;
}
