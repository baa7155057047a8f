// Kernels that banksim's pass cuts into regions at their barriers (banksim/pass/regions.cpp), and
// kernels it must leave to fibers. Each runs both ways in tests/test_regions.cpp: the outputs,
// counts and problems must be the same. Blocks of 64 threads (two warps) unless said.

// Locals across barriers: an array indexed at run time (a real local, not registers), a scalar,
// and a pointer to the array passed to a function that is not inlined (its accesses are checked
// as memory: the array lives in the thread's frame).
__device__ __noinline__ int sum_of(const int* p, int n) {
  int s = 0;
  for (int i = 0; i < n; ++i) s += p[i];
  return s;
}

__global__ void carry_locals(int* out, const int* in) {
  __shared__ int s[64];
  int local[6];
  const int t = static_cast<int>(threadIdx.x);
  const int v = in[blockIdx.x * 64 + t];
  for (int i = 0; i < 6; ++i) local[(i + v) % 6] = v * (i + 1);
  const int twice = 2 * v + 1;
  s[t] = local[v % 6];
  __syncthreads();
  const int got = s[(t + 1) % 64];
  __syncthreads();
  s[t] = got + twice;
  __syncthreads();
  out[blockIdx.x * 64 + t] = s[63 - t] + sum_of(local, 6) + local[(t + 3) % 6];
}

// No stop at all: not cut, but run as one region (called once per thread, its locals on the
// scheduler's stack). A local array indexed at run time and passed to a function that is not
// inlined, and a read of another thread's shared word without a barrier (a race, reported the
// same both ways).
__global__ void no_stops(int* out, const int* in) {
  __shared__ int s[64];
  int local[5];
  const int t = static_cast<int>(threadIdx.x);
  const int v = in[blockIdx.x * 64 + t];
  for (int i = 0; i < 5; ++i) local[(i + v) % 5] = v + i;
  s[t] = local[v % 5];
  const int other = t > 0 ? s[t - 1] : 0;  // written by thread t - 1 just before: a race
  out[blockIdx.x * 64 + t] = sum_of(local, 5) * 100 + s[t] + other;
}

// A barrier after an early return: the others return without reaching it (a problem).
__global__ void early_return(int* out) {
  __shared__ int s[64];
  const int t = static_cast<int>(threadIdx.x);
  if (t >= 48) return;
  s[t] = t;
  __syncthreads();
  out[t] = s[47 - t];
}

// Two barriers in the two sides of a branch (undefined on the GPU: reported).
__global__ void divergent_barriers(int* out) {
  __shared__ int s[64];
  const int t = static_cast<int>(threadIdx.x);
  if (t < 32) {
    s[t] = 1;
    __syncthreads();
    out[t] = s[t + 32];
  } else {
    s[t] = 2;
    __syncthreads();
    out[t] = 3 * s[t - 32];
  }
}

// A read past the end of a shared array after a barrier (a problem) and a race before it.
__global__ void problems_after_barrier(int* out) {
  __shared__ int s[64];
  const int t = static_cast<int>(threadIdx.x);
  s[t] = t;
  const int early = s[(t + 1) % 64];  // another thread's element, before the barrier: a race
  __syncthreads();
  out[t] = s[t + 1] + early;  // thread 63 reads s[64]
}

// Barriers in a loop: a thread passes each several times (cut: each call runs to the next
// barrier, the loop's values in the frame).
__global__ void barrier_in_loop(int* out) {
  __shared__ int s[64];
  const int t = static_cast<int>(threadIdx.x);
  int acc = 0;
  for (int k = 0; k < 4; ++k) {
    s[t] = t * k;
    __syncthreads();
    acc += s[(t + k) % 64];
    __syncthreads();
  }
  out[t] = acc;
}

// Nested loops with barriers, a value carried around the loops (a phi across barriers), a
// barrier in a branch of the inner loop that every thread takes the same way, and a loop whose
// trip count depends on shared data read after a barrier.
__global__ void nested_loops(int* out, const int* in) {
  __shared__ int s[64];
  __shared__ int trips;
  const int t = static_cast<int>(threadIdx.x);
  int carried = in[blockIdx.x * 64 + t];
  if (t == 0) trips = 2 + static_cast<int>(blockIdx.x % 3);
  __syncthreads();
  for (int outer = 0; outer < trips; ++outer) {
    for (int inner = 0; inner <= outer; ++inner) {
      s[t] = carried + inner;
      __syncthreads();
      carried += s[(t + outer + 1) % 64];
      if (outer % 2 == 0) {
        __syncthreads();
      }
      __syncthreads();
    }
    carried ^= outer;
  }
  out[blockIdx.x * 64 + t] = carried;
}

// A warp shuffle: the lanes of a warp wait for each other (cut: a lane returns at the shuffle
// and gets its value when it goes on).
__global__ void with_shuffle(int* out) {
  __shared__ int s[64];
  const int t = static_cast<int>(threadIdx.x);
  s[t] = t;
  __syncthreads();
  out[t] = __shfl_down_sync(0xffffffffu, s[63 - t], 1);
}

// Barriers that return something (__syncthreads_count/_and/_or), with a shuffle between them:
// a thread gets the block's answer as it goes on after each (a barrier's sum, then a lane's
// value, then a barrier's again).
__global__ void barrier_votes(int* out) {
  const int t = static_cast<int>(threadIdx.x);
  const int c = __syncthreads_count(t % 3 == 0);         // 22 of 64
  const int w = __shfl_xor_sync(0xffffffffu, c + t, 1);  // c + (t ^ 1)
  const int a1 = __syncthreads_and(t < 64);              // 1
  const int a0 = __syncthreads_and(t < 63);              // 0
  const int o1 = __syncthreads_or(t == 5);               // 1
  const int o0 = __syncthreads_or(w < 0);                // 0
  out[blockIdx.x * 64 + t] =
      c * 1000000 + (w - c == (t ^ 1) ? 100000 : 0) + a1 * 1000 + a0 * 100 + o1 * 10 + o0;
}

// A barrier inside a function that is not inlined (fibers).
__device__ __noinline__ void stage(int* s, int t) {
  s[t] = 3 * t;
  __syncthreads();
}

__global__ void callee_barrier(int* out) {
  __shared__ int s[64];
  const int t = static_cast<int>(threadIdx.x);
  stage(s, t);
  out[t] = s[63 - t];
}

// Stops the launch after the barrier (an out-of-bounds global write by thread 5 of block 1).
__global__ void abort_after_barrier(int* out) {
  __shared__ int s[64];
  const int t = static_cast<int>(threadIdx.x);
  s[t] = t;
  __syncthreads();
  const int at = (blockIdx.x == 1 && t == 5) ? 1 << 20 : static_cast<int>(blockIdx.x * 64) + t;
  out[at] = s[63 - t];
}
