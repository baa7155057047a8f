// Corpus: kernels with the bugs banksim must report. Each faulty line carries a marker.

// Missing __syncthreads between the write and the neighbour's read: a race.
__global__ void race_missing_sync(float* out, const float* in) {
  __shared__ float s[64];
  const int t = threadIdx.x;
  s[t] = in[t];              // @race_write
  out[t] = s[(t + 1) % 64];  // @race_read
}

// Every thread writes its own id to one word: different values, a race.
__global__ void race_same_word(int* out) {
  __shared__ int flag;
  flag = threadIdx.x;  // @waw_write
  __syncthreads();
  out[threadIdx.x] = flag;
}

// Every thread writes the same value to one word: benign, a warning at most.
__global__ void same_value_write(int* out) {
  __shared__ int flag;
  flag = 1;  // @same_value
  __syncthreads();
  out[threadIdx.x] = flag;
}

// Off by one: thread 31 writes s[32] of a 32-float array.
__global__ void oob_shared_write(float* out) {
  __shared__ float s[32];
  const int t = threadIdx.x;
  s[t + 1] = 1.0f;  // @oob_write
  __syncthreads();
  out[t] = s[t];
}

// Writes a whole row past the end of `first`, towards `second`.
__global__ void oob_into_next(float* out) {
  __shared__ float first[32];
  __shared__ float second[32];
  const int t = threadIdx.x;
  second[t] = 0.0f;
  first[t + 32] = 1.0f;  // @oob_next
  __syncthreads();
  out[t] = second[t];
}

// Dynamic shared memory indexed past the launch's size.
__global__ void oob_dynamic(float* out, int n) {
  extern __shared__ float dyn[];
  const int t = threadIdx.x;
  dyn[t] = 1.0f;  // @oob_dynamic (launched with n * 4 bytes for n < blockDim.x)
  __syncthreads();
  if (t < n) out[t] = dyn[t];
}

// Reads shared memory nobody wrote.
__global__ void uninitialized(float* out) {
  __shared__ float s[32];
  out[threadIdx.x] = s[threadIdx.x];  // @uninit
}

// The classic early return before a barrier.
__global__ void early_return(float* out, int n) {
  __shared__ float s[64];
  const int t = threadIdx.x;
  if (t >= n) return;  // @early_return
  s[t] = 1.0f;
  __syncthreads();  // @divergent_barrier
  out[t] = s[n - 1 - t];
}

// Global memory past the end of the output buffer (give it blockDim.x elements).
__global__ void oob_global(float* out) {
  out[threadIdx.x + 1] = 1.0f;  // @oob_global
}

// Writes through the pointer it is given (give it nullptr).
__global__ void wild_pointer(float* out) {
  out[threadIdx.x] = 1.0f;  // @wild
}

// Spins on a shared flag nobody sets: stopped by the timeout.
__global__ void spin_on_shared(int* out) {
  __shared__ volatile int flag;
  if (threadIdx.x == 0) flag = 0;
  __syncthreads();
  while (flag == 0) {  // @spin
  }
  out[threadIdx.x] = flag;
}

// Spins without touching memory: only the hard timeout can stop it.
__global__ void spin_registers(int* out) {
  for (;;) asm volatile("");  // @spin_hard
  out[threadIdx.x] = 0;
}

// Crashes the process.
__global__ void crash(int* out) {
  if (threadIdx.x == 3) __trap();  // @crash
  out[threadIdx.x] = 0;
}

// A function with 16 MiB of locals called from a kernel without barriers (run as one region, on
// the scheduler's stack): the stack overflows; banksim reports a crash and writes its report.
__device__ __noinline__ int deep_locals(int* p, int n) {
  volatile char big[16 << 20];
  big[n] = 1;
  big[(16 << 20) - 1 - n] = 2;
  return big[n] + p[0];
}
__global__ void big_callee_locals(int* out) {
  out[threadIdx.x] = deep_locals(out, static_cast<int>(threadIdx.x));
}

// A barrier inside an `if` that the threads past n skip (no return anywhere): they finish the
// kernel without reaching it.
__global__ void barrier_in_branch(float* out, int n) {
  __shared__ float s[64];
  const int t = threadIdx.x;
  if (t < n) {  // @branch_head
    s[t] = 1.0f;
    __syncthreads();  // @branch_barrier
    out[t] = s[n - 1 - t];
  }
}

// Each iteration fills the tile, syncs, reads a neighbour's element; the next iteration's write
// races with this one's read (no barrier at the end of the loop body).
__global__ void loop_carried_race(float* out, const float* in) {
  __shared__ float s[64];
  const int t = threadIdx.x;
  float sum = 0.0f;
  for (int k = 0; k < 4; ++k) {
    s[t] = in[t] + static_cast<float>(k);  // @loop_write
    __syncthreads();
    sum += s[(t + 1) % 64];  // @loop_read
  }
  out[t] = sum;
}

// The upper half of the warp syncs among itself, then writes the words the lower half wrote in
// the other arm: a __syncwarp of 16 lanes orders nothing with the other 16, so the writes race.
__global__ void half_warp_sync_race(int* out) {
  __shared__ int s[16];
  const int lane = threadIdx.x % 32;
  if (lane < 16) {
    s[lane] = 1;  // @half_low_write
    out[lane] = 0;
  } else {
    __syncwarp(0xffff0000u);
    s[lane - 16] = 2;  // @half_high_write
    out[lane] = 1;
  }
  __syncthreads();
  out[threadIdx.x] += s[lane % 16];
}

// The same writes with a __syncwarp of the whole warp between them: ordered, no race.
__global__ void warp_sync_orders_halves(int* out) {
  __shared__ int s[16];
  const int lane = threadIdx.x % 32;
  if (lane < 16) s[lane] = 1;
  __syncwarp();
  if (lane >= 16) s[lane - 16] = 2;
  __syncthreads();
  out[threadIdx.x] = s[lane % 16];
}
